"""The differential checker must catch a compiler that changes observable behaviour.

Each fake compiler below breaks exactly one thing a caller can observe; the checker
must report that difference (with the right kind) on a small hand-written program
and also on the generated programs, which proves the generator exercises it.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib.util
import inspect
import io
import re
import textwrap
import time
import types

import pytest
import torch

from autograph.testing import fuzz
from autograph.testing.fuzz import Param, Program, check_program, fixtures, identity_compiler


def _program(body: str, params: tuple[Param, ...] = (Param("x", "tensor", ("A", "B")),), header: str = "") -> Program:
    source = "import torch\n\nCOUNTER = 0\n" + header + "\n\ndef fn(" + ", ".join(p.name for p in params) + "):\n"
    source += "".join(f"    {line}\n" for line in body.strip().splitlines())
    return Program(source=source, params=params, dims=(("A", 3), ("B", 4), ("C", 2)), alt_a=5, ints=(2, 3), inputs_seed=7)


X = Param("x", "tensor", ("A", "B"))
ITEMS = Param("items", "list", ("A", "B"), length=1)

# -- fake compilers, each wrong in one observable way -----------------------------


def drops_list_appends(fn):
    def run(*args):
        return fn(*[list(a) if isinstance(a, list) else a for a in args])
    return run


def rewords_exceptions(fn):
    def run(*args):
        try:
            return fn(*args)
        except Exception as error:
            raise type(error)(f"compiled: {error}") from None
    return run


def changes_exception_type(fn):
    def run(*args):
        try:
            return fn(*args)
        except ValueError as error:
            raise RuntimeError(str(error)) from None
    return run


def swallows_prints(fn):
    def run(*args):
        with contextlib.redirect_stdout(io.StringIO()):
            return fn(*args)
    return run


def clones_inputs(fn):
    def run(*args):
        return fn(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    return run


def isolates_globals(fn):
    copy = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__, fn.__defaults__, fn.__closure__)
    return copy


def _map_tensors(value, f):
    if isinstance(value, torch.Tensor):
        return f(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map_tensors(v, f) for v in value)
    if isinstance(value, dict):
        return {k: _map_tensors(v, f) for k, v in value.items()}
    return value


def perturbs_results(fn):
    def run(*args):
        return _map_tensors(fn(*args), lambda t: t + 1e-3 if t.is_floating_point() else t)
    return run


def detaches_results(fn):
    def run(*args):
        return _map_tensors(fn(*args), lambda t: t.detach())
    return run


def caches_by_shape(fn):
    """A cache with a too-weak guard: keyed on shapes only, so stale values come back."""
    cache = {}

    def run(*args):
        key = tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else repr(a) for a in args)
        if key not in cache:
            cache[key] = fn(*args)
        return cache[key]
    return run


def copies_returned_inputs(fn):
    def run(*args):
        result = fn(*args)
        return list(result) if isinstance(result, list) else result
    return run


def hangs(fn):
    def run(*args):
        time.sleep(5)
        return fn(*args)
    return run


def fails_to_compile(fn):
    raise RuntimeError("backend exploded")


CASES = [
    ("list_append", drops_list_appends, _program("items.append(x * 2)\nreturn x + 1", (X, ITEMS)), "input_mutation"),
    ("message", rewords_exceptions, _program('if x.shape[0] > 1:\n    raise ValueError("too many rows")\nreturn x'), "exception"),
    ("type", changes_exception_type, _program('raise ValueError("no")'), "exception"),
    ("print", swallows_prints, _program('print("rows", x.shape[0])\nreturn x * 2'), "stdout"),
    ("inplace", clones_inputs, _program("x.add_(1)\nreturn x.sum()"), "input_mutation"),
    ("global", isolates_globals, _program("global COUNTER\nCOUNTER += 1\nreturn x"), "global_state"),
    ("value", perturbs_results, _program("return torch.sin(x) * 2"), "result"),
    ("requires_grad", detaches_results, _program("return x * W", header="W = torch.ones(4, requires_grad=True)"), "result"),
    ("stale_cache", caches_by_shape, _program("return x.cos()"), "result"),
    ("alias", copies_returned_inputs, _program("items.append(1)\nreturn items", (X, ITEMS)), "result"),
    ("compile", fails_to_compile, _program("return x"), "compiler_error"),
]


@pytest.mark.parametrize("name, compiler, program, kind", CASES, ids=[case[0] for case in CASES])
def test_checker_reports_what_a_broken_compiler_changes(name, compiler, program, kind):
    assert check_program(program, identity_compiler()) == []
    differences = check_program(program, compiler)
    assert differences, f"{name}: the checker missed the difference"
    assert kind in {d.kind for d in differences}, differences


def test_grad_mode_left_by_a_call_is_compared():
    """A compiled call that leaves grad mode off (a ``with`` exit skipped when the graph raised)."""
    program = _program("with torch.no_grad():\n    y = x * 2\nreturn y")

    def leaves_grad_off(fn):
        def run(*args):
            result = fn(*args)
            torch._C._set_grad_enabled(False)
            return result
        return run

    assert check_program(program, identity_compiler()) == []
    differences = check_program(program, leaves_grad_off)
    assert [d.kind for d in differences] == ["process_state"], differences
    assert torch.is_grad_enabled()


def test_exception_difference_names_both_messages():
    program = CASES[1][2]
    (difference,) = check_program(program, rewords_exceptions)
    assert "too many rows" in difference.detail and "compiled: too many rows" in difference.detail
    assert difference.eager_exception == "ValueError"


def test_stale_cache_is_caught_on_the_second_call_with_fresh_values():
    differences = check_program(CASES[8][2], caches_by_shape)
    assert differences[0].call == 1


def test_a_hanging_compiled_call_is_reported_as_timeout():
    differences = check_program(_program("return x"), hangs, timeout_s=0.3)
    assert [d.kind for d in differences] == ["timeout"]


def test_module_state_changes_are_compared():
    header = ("class Counter(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.calls = 0\n\n    def forward(self, x):\n        self.calls += 1\n        return x\n\n"
              "counter = Counter()\n")
    program = _program("return counter(x)", header=header)
    assert check_program(program, identity_compiler()) == []

    def skips_module_call(fn):
        return lambda x: x

    differences = check_program(program, skips_module_call)
    assert any(d.kind == "global_state" and "calls" in d.detail for d in differences), differences


def test_nan_results_compare_equal_but_nan_versus_number_does_not():
    assert fuzz.diff_values(float("nan"), float("nan"), "r") is None
    assert fuzz.diff_values(torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]), "r") is None
    assert fuzz.diff_values(float("nan"), 1.0, "r") is not None
    assert fuzz.diff_values(torch.tensor([float("nan")]), torch.tensor([1.0]), "r") is not None


def test_types_and_structure_are_compared_exactly():
    assert fuzz.diff_values((1, 2), [1, 2], "r") is not None
    assert fuzz.diff_values(1, 1.0, "r") is not None
    assert fuzz.diff_values({"a": 1, "b": 2}, {"b": 2, "a": 1}, "r") is not None
    assert fuzz.diff_values(torch.ones(2, 3), torch.ones(3, 2).t(), "r") is not None  # strides
    assert fuzz.diff_values(torch.ones(2, 3), torch.ones(2, 3), "r") is None


# -- the generated programs exercise what the fake compilers break ------------------

GENERATED_CATCHES = [
    (drops_list_appends, "input_mutation"),
    (rewords_exceptions, "exception"),
    (swallows_prints, "stdout"),
    (clones_inputs, "input_mutation"),
    (isolates_globals, "global_state"),
    (perturbs_results, "result"),
    (caches_by_shape, "result"),
    (detaches_results, "result"),
]


@pytest.mark.parametrize("compiler, kind", GENERATED_CATCHES, ids=[c.__name__ for c, _ in GENERATED_CATCHES])
def test_generated_programs_catch_each_broken_compiler(compiler, kind):
    for seed in range(80):
        differences = check_program(fuzz.generate_program(seed), compiler)
        if any(d.kind == kind for d in differences):
            return
    pytest.fail(f"none of 80 generated programs exposed {compiler.__name__} ({kind})")


# -- the exactness classes (issue 13): each broken compiler keeps values but breaks one ------
# -- thing Python guarantees; the checker must see it --------------------------------------

def rewriting(pattern: str, replacement: str):
    """A "compiler" that recompiles fn's source with one textual change (a wrong folding or a dropped call)."""
    def compile_(fn):
        changed = re.sub(pattern, replacement, textwrap.dedent(inspect.getsource(fn)))
        namespace = {}
        exec(compile(changed, fn.__code__.co_filename, "exec"), fn.__globals__, namespace)
        return namespace[fn.__name__]
    compile_.__name__ = f"rewriting({pattern!r})"
    return compile_


def freezes_string_args(fn):
    """No guard on str arguments: the first call's string is used forever."""
    first = {}

    def run(*args):
        return fn(*[first.setdefault(i, a) if isinstance(a, str) else a for i, a in enumerate(args)])
    return run


def freezes_object_args(fn):
    """Reads attributes of the caller's object as they were on the first call (and writes to that copy)."""
    frozen = {}

    def run(*args):
        return fn(*[frozen.setdefault(i, copy.copy(a)) if type(a).__name__ == "Obj" else a for i, a in enumerate(args)])
    return run


def copies_iterators(fn):
    """Advances its own copy of an iterator passed in, not the caller's."""
    def private(a):
        if inspect.isgenerator(a):
            return iter(list(a))
        return copy.copy(a) if hasattr(a, "__next__") else a

    return lambda *args: fn(*[private(a) for a in args])


def new_result_objects(fn):
    """Returns an equal but new tensor where the function returned an existing one (identity lost)."""
    return lambda *args: _map_tensors(fn(*args), lambda t: t.view_as(t))


def reuses_exceptions(fn):
    """Raises the first exception object it saw again on later calls (same type and message)."""
    seen = {}

    def run(*args):
        try:
            return fn(*args)
        except Exception as error:
            raise seen.setdefault((type(error), str(error)), error) from None
    return run


def drops_exception_attributes(fn):
    """Re-raises a new exception of the same type and message, without the attributes."""
    def run(*args):
        try:
            return fn(*args)
        except Exception as error:
            raise type(error)(*error.args) from None
    return run


def shares_fresh_objects(fn):
    """Hands out the first set/list/dict/object it returned again, refilled with this call's content."""
    kept = {}

    def refill(index, value):
        old = kept.setdefault(index, value)
        if old is value or type(old) is not type(value):
            return value
        if isinstance(value, (set, dict)):
            old.clear(), old.update(value)
        elif isinstance(value, list):
            old[:] = value
        else:
            old.__dict__.clear(), old.__dict__.update(vars(value))
        return old

    def run(*args):
        result = fn(*args)
        if isinstance(result, tuple):
            return tuple(refill(i, v) if isinstance(v, (set, list, dict)) or hasattr(v, "__dict__") and
                         not isinstance(v, torch.Tensor) else v for i, v in enumerate(result))
        return result
    return run


def unaliases_inputs(fn):
    """Copies an argument passed twice, so writes through one name are not seen through the other."""
    def run(*args):
        seen, fixed = set(), []
        for a in args:
            fixed.append(a.clone() if isinstance(a, torch.Tensor) and id(a) in seen else a)
            seen.add(id(a))
        return fn(*fixed)
    return run


OBJ_HEADER = fixtures.FIXTURES["Obj"]
ERR_HEADER = fixtures.FIXTURES["FuzzError"] + "\nCAUGHT = []\n"
S, O, IT, G, D = (Param("s", "str"), Param("o", "obj"), Param("it", "iter", ("A", "B"), length=3),
                  Param("g", "gen", length=3), Param("d", "dict", ("A", "B")))
Y = Param("y", "tensor", ("A", "B"))


def _between(*changes: tuple[int, str]) -> str:
    body = "".join(f"    if call == {call}:\n        {change}\n" for call, change in changes)
    return "\n\ndef between_calls(call):\n    global MODE\n" + body


EXACTNESS_CASES = [
    ("substring test on a str argument", freezes_string_args,
     _program("if 'ab' in s:\n    return x * 2\nreturn x", (X, S)), "result"),
    ("string folded by a wrong rule", rewriting(r"'ab' in s", "s == 'ab'"),
     _program("if 'ab' in s:\n    return x * 2\nreturn x", (X, S)), "result"),
    ("dict view kept across a mutation", rewriting(r"\.values\(\)", ".copy().values()"),
     _program("v = d.values()\nd['n'] = x\nreturn x * len(v)", (X, D)), "result"),
    ("getattr default while the attribute appears between calls", freezes_object_args,
     _program("return x * getattr(o, 'z', 1)", (X, O), header=OBJ_HEADER + _between((1, "OBJ.z = 5"))), "result"),
    ("hasattr while the attribute disappears between calls", freezes_object_args,
     _program("if hasattr(o, 'z'):\n    return x + o.z\nreturn x", (X, O),
              header=OBJ_HEADER + "OBJ.z = 2\n" + _between((2, "del OBJ.z"))), "result"),
    ("setattr on the caller's object", freezes_object_args,
     _program("o.count += 1\nreturn x", (X, O), header=OBJ_HEADER), "input_mutation"),
    ("iterator passed in", copies_iterators, _program("return x + next(it)", (X, IT)), "input_mutation"),
    ("generator passed in", copies_iterators, _program("return x * next(g)", (X, G),
                                                      header=fixtures.FIXTURES["numbers"]), "input_mutation"),
    ("in-place method returns self", new_result_objects, _program("y = x.add_(1)\nreturn y", (X,)), "result"),
    ("out= call with unused result", rewriting(r", out=buf\)", ")"),
     _program("buf = torch.zeros_like(x)\ntorch.add(x, 1, out=buf)\nreturn buf * 2"), "result"),
    ("inplace=True call with unused result", rewriting(r", inplace=True\)", ")"),
     _program("torch.nn.functional.relu(x, inplace=True)\nreturn x.sum()"), "input_mutation"),
    ("global rebound between calls", isolates_globals,
     _program("if MODE == 'fast':\n    return x\nreturn -x", header='MODE = "fast"\n' + _between((2, "MODE = 'slow'"))),
     "result"),
    ("exception object reused across calls", reuses_exceptions,
     _program('raise FuzzError("bad", code=42)', header=ERR_HEADER), "exception"),
    ("exception attributes", drops_exception_attributes,
     _program('raise FuzzError("bad", code=42)', header=ERR_HEADER), "exception"),
    ("caught exception made once", rewriting(r'raise FuzzError\("bad", code=42\)', "raise CAUGHT[0] if CAUGHT else "
                                                                                   'FuzzError("bad", code=42)'),
     _program('try:\n    raise FuzzError("bad", code=42)\nexcept FuzzError as e:\n    e.code += 1\n'
              '    CAUGHT.append(e)\n    k = e.code\nreturn x * k', header=ERR_HEADER), "result"),
    ("fresh set per call", shares_fresh_objects, _program("tags = set()\ntags.add(x.shape[0])\nreturn x, tags"), "result"),
    ("fresh plain object per call", shares_fresh_objects,
     _program("box = Box()\nbox.n = x.shape[0]\nreturn x, box", header=fixtures.FIXTURES["Box"]), "result"),
    ("the same tensor passed twice", unaliases_inputs,
     _program("x.add_(1)\nreturn y * 2", (X, Y)), "result"),
]
EXACTNESS_CASES[-1] = EXACTNESS_CASES[-1][:2] + (dataclasses.replace(EXACTNESS_CASES[-1][2], alias_inputs=True),
                                                 EXACTNESS_CASES[-1][3])


@pytest.mark.parametrize("name, compiler, program, kind", EXACTNESS_CASES, ids=[case[0] for case in EXACTNESS_CASES])
def test_checker_catches_each_exactness_class(name, compiler, program, kind):
    assert check_program(program, identity_compiler()) == [], "the program must be deterministic under eager"
    differences = check_program(program, compiler)
    assert differences, f"{name}: the checker missed the difference"
    assert kind in {d.kind for d in differences}, differences


EXACTNESS_PROGRAMS = {name: program for name, _, program, _ in EXACTNESS_CASES}


def test_identity_is_paired_across_calls_and_named():
    (difference,) = check_program(EXACTNESS_PROGRAMS["exception object reused across calls"], reuses_exceptions)
    assert "compiled has the same object as exception of call 0" in difference.detail
    (difference,) = [d for d in check_program(EXACTNESS_PROGRAMS["in-place method returns self"], new_result_objects)
                     if d.kind == "result"]
    assert "eager has the same object as argument 'x' of call 0" in difference.detail


def test_returned_objects_are_touched_so_a_kept_object_shows_next_call():
    kept = {}

    def keeps_first_set(fn):
        def run(*args):
            value, tags = fn(*args)
            return value, kept.setdefault("tags", tags)
        return run

    program = EXACTNESS_PROGRAMS["fresh set per call"]
    differences = check_program(program, keeps_first_set)
    assert differences and differences[0].call == 1


EXACTNESS_GENERATED = [
    (freezes_string_args, "result"),
    (freezes_object_args, None),
    (copies_iterators, "input_mutation"),
    (reuses_exceptions, "exception"),
    (shares_fresh_objects, "result"),
    (unaliases_inputs, None),
    (rewriting(r", out=(\w+)\)", ")"), None),
    (rewriting(r"\.(values|keys|items)\(\)", r".copy().\1()"), None),
]


@pytest.fixture(scope="module")
def exactness_programs():
    return [fuzz.generate_program(seed) for seed in range(120)]


@pytest.mark.parametrize("compiler, kind", EXACTNESS_GENERATED, ids=[c.__name__ for c, _ in EXACTNESS_GENERATED])
def test_generated_programs_expose_each_exactness_class(exactness_programs, compiler, kind):
    for program in exactness_programs:
        differences = check_program(program, compiler)
        if differences and (kind is None or any(d.kind == kind for d in differences)):
            return
    pytest.fail(f"none of {len(exactness_programs)} generated programs exposed {compiler.__name__}")


# -- minimisation and regression files ---------------------------------------------

NOISY = _program("""
t0 = torch.sin(x)
t1 = t0 * 2 + x
if t1.sum() > 100:
    t1 = t1 * 0
t2 = t1.cos()
items.append(t2)
t3 = t2.sum(dim=-1)
for i in range(3):
    t3 = t3 + i
return t3
""", (X, ITEMS))


def test_minimize_drops_statements_that_do_not_matter():
    (difference,) = check_program(NOISY, drops_list_appends)
    small = fuzz.minimize(NOISY, drops_list_appends, difference)
    assert len(small.source.splitlines()) < len(NOISY.source.splitlines()) - 4
    assert "items.append" in small.source
    assert any(d.kind == "input_mutation" for d in check_program(small, drops_list_appends))


def _import_file(path):
    spec = importlib.util.spec_from_file_location(f"fuzz_regression_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regression_file_reproduces_the_failure(tmp_path):
    differences = check_program(NOISY, drops_list_appends)
    text = fuzz.regression_test_source(NOISY, differences, found_by="a unit test", xfail_reason="appends dropped")
    path = tmp_path / fuzz.regression_file_name(differences[0], NOISY)
    path.write_text(text)
    module = _import_file(path)
    assert module.PROGRAM == NOISY
    assert "input_mutation" in module.OBSERVED
    marks = [mark.name for mark in module.test_compiled_matches_eager.pytestmark]
    assert "xfail" in marks and "fuzz" in marks
    module.autograph_compiler = lambda backend: drops_list_appends
    with pytest.raises(AssertionError, match="input_mutation"):
        module.test_compiled_matches_eager()
    module.autograph_compiler = lambda backend: identity_compiler()
    module.test_compiled_matches_eager()


def test_program_round_trips_through_a_dict():
    program = fuzz.generate_program(3)
    assert Program.from_dict(program.to_dict()) == program


def test_programs_run_with_real_line_numbers_in_a_real_file():
    program = _program("y = x + 1\nraise ValueError('here')")
    module = fuzz.load_program(program.source)
    try:
        with pytest.raises(ValueError) as info:
            module.fn(torch.ones(2))
        frame = info.traceback[-1]
        assert frame.lineno + 1 == program.source.splitlines().index("    raise ValueError('here')") + 1
        assert str(frame.path).endswith(".py") and open(frame.path).read() == program.source
    finally:
        fuzz.unload_program(module)


# -- validated against a real compiler: torch.compile(backend="eager") --------------

# Deviations of Dynamo itself that the harness is expected to report (torch 2.x):
# errors found while running ops on fake tensors are re-raised as
# torch._dynamo.exc.TorchRuntimeError (not the eager RuntimeError), and builtin
# max() over tensors can return a tensor that requires grad where eager's does not.
_KNOWN_DYNAMO = ("TorchRuntimeError", "requires_grad")


def test_dynamo_stand_in_agrees_on_generated_programs_except_its_known_deviations():
    compiler = fuzz.dynamo_compiler()
    # the programs this test was calibrated on: the state families (training loops, ...) draw
    # nothing when off, so these are the same programs as before they existed
    config = fuzz.DEFAULT_CONFIG.without(*fuzz.STATE_FEATURES)
    agreed = 0
    for seed in range(12):
        differences = check_program(fuzz.generate_program(seed, config), compiler)
        unexpected = [d for d in differences if not any(k in d.detail for k in _KNOWN_DYNAMO)]
        assert not unexpected, fuzz.format_failure(fuzz.generate_program(seed, config), unexpected)
        agreed += not differences
    assert agreed >= 9


def test_harness_reports_dynamos_rewrapped_shape_error():
    program = _program("return x.view(-1, 7)")
    (difference,) = check_program(program, fuzz.dynamo_compiler())
    assert difference.kind == "exception" and "TorchRuntimeError" in difference.detail
    assert "shape '[-1, 7]' is invalid" in difference.detail


def test_regression_file_runs_previous_programs_first(tmp_path):
    earlier = _program("return x * 3")
    differences = check_program(NOISY, drops_list_appends)
    text = fuzz.regression_test_source(NOISY, differences, found_by="a unit test", previous=[earlier])
    path = tmp_path / "test_fuzz_previous.py"
    path.write_text(text)
    module = _import_file(path)
    assert module.PREVIOUS == [earlier]
    checked = []
    module.check_program = lambda program, compiler: checked.append(program) or []
    module.autograph_compiler = lambda backend: identity_compiler()
    module.test_compiled_matches_eager()
    assert checked == [earlier, NOISY]


@pytest.mark.parametrize("kind", ["result", "crash"])
def test_regression_file_imports_only_what_it_uses(kind):
    """Saved regression files pass the lint gate (scripts/test runs ruff over tests/)."""
    import ast

    text = fuzz.regression_test_source(NOISY, [fuzz.Difference(0, kind, "detail")], found_by="a unit test")
    tree = ast.parse(text)
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert imported <= used, imported - used
    assert ("check_program_isolated(" in text) == (kind == "crash")
