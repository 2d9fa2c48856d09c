"""The program generator: deterministic, valid Python, mostly runnable, and covering
every feature family the fuzzing issue asks for."""
from __future__ import annotations

import collections
import re

import pytest
from hypothesis import HealthCheck, given, settings

from autograph.testing import fuzz

SEEDS = range(150)


@pytest.fixture(scope="module")
def generated():
    return [fuzz.generate_program(seed) for seed in SEEDS]


def test_same_seed_same_program_and_inputs():
    a, b = fuzz.generate_program(11), fuzz.generate_program(11)
    assert a == b
    module = fuzz.load_program(a.source)
    try:
        for call in range(fuzz.CALLS):
            left, right = fuzz.make_inputs(a, call, module), fuzz.make_inputs(b, call, module)
            assert fuzz.diff_values(left, right, "inputs") is None
    finally:
        fuzz.unload_program(module)


def test_different_seeds_give_different_programs(generated):
    assert len({p.source for p in generated}) > 0.95 * len(generated)


def test_calls_use_fresh_values_and_one_other_batch_size():
    program = fuzz.generate_program(5, fuzz.DEFAULT_CONFIG.without(*fuzz.EXACTNESS_FEATURES))
    shapes = [tuple(fuzz.make_inputs(program, call)[0].shape) for call in range(fuzz.CALLS)]
    assert len({s for i, s in enumerate(shapes) if i != fuzz.ALT_SHAPE_CALL}) == 1
    assert shapes[fuzz.ALT_SHAPE_CALL] != shapes[0]
    first, second = fuzz.make_inputs(program, 0)[0], fuzz.make_inputs(program, 1)[0]
    assert not (first == second).all()


def _plan(**changes):
    params = (fuzz.Param("x", "tensor", ("A", "B")), fuzz.Param("y", "tensor", ("A", "B")), fuzz.Param("s", "str"),
              fuzz.Param("o", "obj"), fuzz.Param("it", "iter", ("A", "B"), length=3), fuzz.Param("g", "gen", length=2),
              fuzz.Param("d", "dict", ("A", "B")))
    source = ("class Obj:\n    pass\n\nOBJ = Obj()\n\ndef numbers(n):\n    yield from range(n)\n\n"
              "def fn(x, y, s, o, it, g, d):\n    return x\n")
    return fuzz.Program(source=source, params=params, dims=(("A", 2), ("B", 3), ("C", 2)), alt_a=4,
                        strings=("abc", "ba"), **changes)


def test_call_plan_passes_strings_the_callers_object_iterators_and_aliased_tensors():
    program = _plan(alias_inputs=True)
    module = fuzz.load_program(program.source)
    try:
        calls = [fuzz.make_inputs(program, call, module) for call in range(fuzz.CALLS)]
        assert [c[2] for c in calls] == ["abc"] * fuzz.ALT_STR_CALL + ["ba"]
        assert all(c[3] is module.OBJ for c in calls)  # one object, changed between calls
        assert [len(list(c[4])) for c in calls] == [3] * fuzz.CALLS
        assert [list(c[5]) for c in calls] == [[0, 1]] * fuzz.CALLS
        assert sorted(calls[0][6]) == ["a", "b"]
        assert [c[0] is c[1] for c in calls] == [call == fuzz.ALIAS_CALL for call in range(fuzz.CALLS)]
        with pytest.raises(ValueError, match="needs the loaded program module"):
            fuzz.make_inputs(program, 0)
    finally:
        fuzz.unload_program(module)
    assert fuzz.Program.from_dict(program.to_dict()) == program


def test_every_program_compiles_and_fn_is_small(generated):
    for program in generated:
        compile(program.source, "<fuzz>", "exec")
        body = program.source.split("def fn(")[1].splitlines()[1:]
        statements = [line for line in body if line.startswith("    ") and not line.startswith("     ")]
        # a statement is at most a few lines (an out= call under no_grad, a view bound, mutated, read)
        assert 3 <= len(statements) <= 3 * 12 + 2, program.source  # + global and return lines


def test_most_programs_run_and_some_raise(generated):
    outcomes = [fuzz.eager_outcomes(p) for p in generated[:80]]
    clean = sum(all(o.error is None for o in calls) for calls in outcomes)
    raising = sum(any(o.error is not None for o in calls) for calls in outcomes)
    assert clean >= 0.6 * len(outcomes), f"only {clean} of {len(outcomes)} programs run without an exception"
    assert raising >= 0.05 * len(outcomes)


FEATURE_PATTERNS = {
    "torch function": r"torch\.(sin|tanh|relu|maximum|where|softmax|stack|cat)\(",
    "tensor method": r"\.(cos|sigmoid|abs|clamp|sum|mean|reshape|t)\(",
    "matmul": r" @ |torch\.matmul",
    "reduction": r"\.(sum|mean|amax)\(dim=",
    "view": r"\.(reshape|view|transpose|unsqueeze|flatten)\(",
    "tuple unpacking": r"^\s+t\d+, t\d+(, t\d+)? = p\d+$",
    "star unpacking": r", \*l\d+ = ",
    "dict": r"\{'k0': ",
    "slicing": r"\[1:\]",
    "list comprehension": r"\[.* for .* in .*\]",
    "dict comprehension": r"\{f'k\{i\}'",
    "generator expression": r"sum\(.* for .* in ",
    "helper call": r"= helper_\d+\(",
    "closure helper": r"def make_helper_\d+\(c\)",
    "varargs helper": r"def helper_\d+\(\*ts\)",
    "defaults helper": r"def helper_\d+\(a, scale=1.5, shift=0\)",
    "module": r"= block\d+\(",
    "module list": r"torch\.nn\.ModuleList",
    "branch on python value": r"^\s+if (n [>%]|len\(|FLAG|.*\.shape\[0\] > 3)",
    "branch on tensor value": r"^\s+if .*(\.sum\(\) >|\.mean\(\) <|\.any\(\)|\.max\(\) >)",
    "for range": r"for i\d+ in range\(",
    "for list": r"for v\d+ in l\d+:",
    "enumerate": r"in enumerate\(",
    "zip": r"in zip\(",
    "while": r"^\s+while ",
    "in-place op": r"\.(add_|mul_|clamp_|sin_)\(",
    "augmented assignment": r"^\s+t\d+ [+*-]= ",
    "list append side effect": r"items\.(append|extend|insert)\(",
    "global write": r"COUNTER \+= |^\s+LAST = |SCALE = SCALE",
    "global read": r"\* SCALE",
    "print": r"print\(",
    "raise": r"raise (ValueError|RuntimeError|KeyError)",
    "assert": r"assert ",
    "try/except": r"except .* as e:",
    "data-dependent scalar": r"\.item\(\)|float\(",
    "data-dependent shape": r"\[(\w+) > 0\]|nonzero",
}


def test_generator_covers_every_feature(generated):
    counts = collections.Counter()
    for program in generated:
        for feature, pattern in FEATURE_PATTERNS.items():
            if re.search(pattern, program.source, re.MULTILINE):
                counts[feature] += 1
    missing = [feature for feature in FEATURE_PATTERNS if counts[feature] == 0]
    assert not missing, f"features never generated in {len(generated)} programs: {missing}"


EXACTNESS_PATTERNS = {
    # strings and f-strings: substring tests, methods, slicing, comparisons
    "str parameter": r"^def fn\(.*\bs\b",
    "substring in": r"'\w+' (not )?in (s|MODE|s\d+|o\.tag)\b",
    "str method": r"\.(upper|replace|strip|split|title|center|partition|lstrip|startswith|endswith|find|count)\(",
    "str slicing": r"(s|s\d+|MODE)\[(1:|::-1|:1|-1:)\]",
    "str comparison": r"(s|s\d+|MODE) (==|!=|<) '",
    "f-string": r"\bf\"\{",
    "str-keyed dict": r"= \{(s|s\d+|MODE|'\w*'): ",
    "named tuple == tuple": r"Pair\(.*\) (==|!=) \(|\) != Pair\(|\] == \(",
    # dict views kept across mutations
    "dict view": r"= (d|dd\d+)\.(keys|values|items)\(\)",
    "view read after mutation": r"(len|list|sum)\(dv\d+|in dv\d+",
    "dict mutated under a view": r"(d|dd\d+)(\['n'\] =|\.pop\(|\.setdefault\(|\.update\()",
    # attributes of an object changed between calls
    "getattr default": r"getattr\((o|OBJ), ",
    "hasattr": r"hasattr\((o|OBJ), ",
    "setattr": r"setattr\((o|OBJ), |(o|OBJ)\.(count|last|tmp) (\+)?= ",
    "attribute appears between calls": r"OBJ\.z = \d",
    "attribute disappears between calls": r"del OBJ\.(z|scale)",
    "class attribute changed between calls": r"Obj\.(kind|scale) = ",
    # iterators and generators passed in
    "iterator passed in": r"next\(it(, \w+)?\)|for v in it:|for _ in it",
    "generator passed in": r"next\(g(, -1\.0)?\)|for v in g:|max\(g, ",
    # identity
    "is on in-place result": r"y\d+ is (x|y|w|bias|t\d+)",
    "is on a view": r"y\d+ is (not )?(x|y|w|bias|t\d+)",
    "id()": r"id\(\w+\) == id\(",
    "aliased inputs": r"alias_inputs",  # checked on the Program, see below
    # out= and inplace=True calls whose result is unused
    "out= call": r"^ +torch\.(add|mul|sin|clamp|tanh|neg|sum|matmul|addmm|cat|stack)\(.*out=",
    "inplace=True": r"inplace=True\)|torch\.(relu_|sigmoid_)\(",
    # globals rebound between calls
    "global rebound between calls": r"^ +(MODE|SCALE|FLAG|WEIGHT) = ",
    "global read": r"MODE|\* WEIGHT|\* SCALE",
    # exceptions with constant arguments, raised and caught
    "constant raise": r"raise (FuzzError|ValueError)\(\"bad",
    "caught object changed": r"e\.code \+= 1",
    "division by a changing int caught": r"^ +q\d+ = .*\((n|\w+) (%|-) \d\)$",
    "graph break in an except handler": r"^ +print\(\"caught\", len\(e\.args\)\)",
    "caught object kept": r"CAUGHT\.append\(e\)|\.last_error = e",
    # objects made in the function and returned
    "fresh set": r"tags\d+ = set\(\)",
    "fresh list": r"acc\d+ = \[\]",
    "fresh dict": r"info\d+ = \{\}",
    "fresh plain object": r"box\d+ = Box\(\)|marker\d+ = object\(\)",
    "fresh exception": r"err\d+ = (ValueError|KeyError)\(",
    "fresh object returned": r"return .*\b(tags|acc|info|box|marker|err)\d+",
    # with blocks of Python context managers: nested, a graph break inside the innermost
    "with block": r"^ +with Tracked\('(a|b|outer)'\)",
    "nested with blocks": r"^ +with Tracked\('outer'\).*:\n(.*\n)*? +with Tracked\('inner'\)",
    "break inside a with block": r"^ +print\(\"in\", TRACE\[-1\]\)",
    "run-time error swallowed by a with block": r"^ +with (contextlib\.suppress\(IndexError|Swallowing\(\)|swallowed\(\)|torch\.no_grad\(\)):\n +r\d+ = .*index_select",
    # grad-mode blocks (nested, a run-time error inside) and tensor queries a fake may answer wrongly
    "grad-mode block": r"^ +with torch\.(no_grad|enable_grad|set_grad_enabled|inference_mode)\(",
    "nested grad-mode blocks": r"^( +)with torch\.(no_grad|enable_grad|set_grad_enabled|inference_mode)\(.*:\n\1    with torch\.",
    "inference_mode block": r"^ +with torch\.inference_mode\(",
    "run-time error inside a grad-mode block": r"^ +with torch\.\w+\(\w*\):\n(.*\n)*? +g\d+ = .*index_select",
    "storage_type query": r"q\d+ = \w+\.storage_type\(\)",
    "branch on a tensor query": r"t\d+ = \w+ \* \(2\.0 if q\d+ else -0\.5\)",
    # a subclass calling super().forward after a graph break
    "super() after a break": r"print\(\"calls\", self\.calls\)\n +return super\(\)\.forward\(x\)",
}


def test_generator_writes_every_exactness_construct(generated):
    counts = collections.Counter()
    for program in generated:
        text = program.source + ("\nalias_inputs" if program.alias_inputs else "")
        for construct, pattern in EXACTNESS_PATTERNS.items():
            if re.search(pattern, text, re.MULTILINE):
                counts[construct] += 1
    missing = [construct for construct in EXACTNESS_PATTERNS if counts[construct] == 0]
    assert not missing, f"constructs never generated in {len(generated)} programs: {missing}"


def test_between_calls_changes_what_fn_reads():
    with_hook = [p for p in (fuzz.generate_program(seed) for seed in SEEDS) if "def between_calls(call):" in p.source]
    assert len(with_hook) >= 20
    for program in with_hook:
        hook = program.source.split("def between_calls(call):")[1]
        changed = set(re.findall(r"\b(OBJ|Obj|MODE|SCALE|FLAG|WEIGHT|NET|STREAM|ITEMS|TABLE)\b", hook))
        fn_body = program.source.split("def fn(")[1].split("def between_calls")[0]
        assert any(re.search(rf"\b{name}\b", fn_body) for name in changed) or changed & {"OBJ", "Obj"}, program.source


def test_config_switches_features_off():
    config = fuzz.DEFAULT_CONFIG.without("print", "exceptions", "list_append", "globals", "try_except",
                                         "rebind_globals")
    for seed in range(60):
        source = fuzz.generate_program(seed, config).source
        assert "print(" not in source and "raise " not in source and "items.append" not in source
        assert "COUNTER +=" not in source and "try:" not in source
        assert not re.search(r"^ +(MODE|SCALE|FLAG|WEIGHT) = ", source, re.MULTILINE)  # nothing rebinds globals
    plain = fuzz.DEFAULT_CONFIG.without(*fuzz.EXACTNESS_FEATURES)
    for seed in range(60):
        program = fuzz.generate_program(seed, plain)
        assert not re.search(r"def between_calls|\.keys\(\)|\.values\(\)|OBJ|out=|inplace=True| is ", program.source)
        assert {p.kind for p in program.params} <= {"tensor", "int", "list", "float"} and not program.alias_inputs
    with pytest.raises(ValueError, match="unknown fuzz features"):
        fuzz.DEFAULT_CONFIG.without("teleport")


def test_config_without_made_objects_raises_only_through_torch_and_python_operations():
    config = fuzz.DEFAULT_CONFIG.without("made_objects")
    sources = [fuzz.generate_program(seed, config).source for seed in range(300)]
    made = [s for s in sources if re.search(r"raise |assert |Error\(|object\(\)", s)]
    assert not made, made[0]
    assert sum(bool(re.search(r"\.view\(-1, 7\)|= t\d+ \+ t\d+$", s, re.MULTILINE)) for s in sources) >= 5
    assert sum("set()" in s for s in sources) >= 5  # the other fresh objects remain
    with_made = [fuzz.generate_program(seed, fuzz.DEFAULT_CONFIG).source for seed in range(300)]
    assert sum(bool(re.search(r'raise \w+\(|assert .*, "', s)) for s in with_made) >= 20
    assert sum("object()" in s for s in with_made) >= 5


@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fuzz.programs())
def test_hypothesis_strategy_programs_are_deterministic_under_eager(program):
    compile(program.source, "<fuzz>", "exec")
    assert fuzz.check_program(program, fuzz.identity_compiler()) == []
