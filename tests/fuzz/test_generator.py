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
    for call in range(fuzz.CALLS):
        left, right = fuzz.make_inputs(a, call), fuzz.make_inputs(b, call)
        assert fuzz.diff_values(left, right, "inputs") is None


def test_different_seeds_give_different_programs(generated):
    assert len({p.source for p in generated}) > 0.95 * len(generated)


def test_calls_use_fresh_values_and_one_other_batch_size():
    program = fuzz.generate_program(5)
    shapes = [tuple(fuzz.make_inputs(program, call)[0].shape) for call in range(fuzz.CALLS)]
    assert len({s for i, s in enumerate(shapes) if i != fuzz.ALT_SHAPE_CALL}) == 1
    assert shapes[fuzz.ALT_SHAPE_CALL] != shapes[0]
    first, second = fuzz.make_inputs(program, 0)[0], fuzz.make_inputs(program, 1)[0]
    assert not (first == second).all()


def test_every_program_compiles_and_fn_is_small(generated):
    for program in generated:
        compile(program.source, "<fuzz>", "exec")
        body = program.source.split("def fn(")[1].splitlines()[1:]
        statements = [line for line in body if line.startswith("    ") and not line.startswith("     ")]
        assert 3 <= len(statements) <= 15 + 2, program.source  # + global and return lines


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


def test_config_switches_features_off():
    config = fuzz.DEFAULT_CONFIG.without("print", "exceptions", "list_append", "globals", "try_except")
    for seed in range(60):
        source = fuzz.generate_program(seed, config).source
        assert "print(" not in source and "raise " not in source and "items.append" not in source
        assert "COUNTER +=" not in source and "try:" not in source
    with pytest.raises(ValueError, match="unknown fuzz features"):
        fuzz.DEFAULT_CONFIG.without("teleport")


@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fuzz.programs())
def test_hypothesis_strategy_programs_are_deterministic_under_eager(program):
    compile(program.source, "<fuzz>", "exec")
    assert fuzz.check_program(program, fuzz.identity_compiler()) == []
