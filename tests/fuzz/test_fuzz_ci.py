"""Bounded differential fuzzing of ``autograph.compile(fn, backend="eager")`` (issues #9, #13).

Generated programs, fixed seeds, 5 calls each with fresh inputs, a second int value, a
second batch size and a second string, objects and globals changed between calls. Skips,
saying why, while ``autograph.compile`` cannot be imported. A failure prints the whole
program; ``scripts/fuzz.py`` finds, minimises and saves such programs as regression tests.

Cases, each well under a minute of CPU on this 2-core box:
* the tensor-level families (40 programs), without objects the function makes itself
  (``made_objects``: the exceptions of its ``raise``/``assert`` statements, ``object()``)
  — must pass;
* exceptions the function raises itself (``raise E(...)``, ``assert c, "..."``): a new object
  on every call (issue 13) — must pass (a reused object fails as ``ReusedExceptionObject``);
* every family including the Python-level exactness constructs of issue 13 and objects the
  function makes (30 programs) — must pass.
The differences issue 13 fixed (``s in 'literal'``, ``l is items``, a set returned twice, an
attribute the function sets and deletes, reused exceptions) have regression files in
tests/fuzz_regressions. A longer run of the first case is marked slow.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from autograph.testing import fuzz

_SETTINGS = dict(derandomize=True, deadline=None, database=None,
                 phases=[Phase.explicit, Phase.generate],  # no shrinking in CI: scripts/fuzz.py minimises
                 suppress_health_check=list(HealthCheck))

TENSOR_FAMILIES = fuzz.DEFAULT_CONFIG.without(*fuzz.EXACTNESS_FEATURES, "made_objects")
OWN_EXCEPTIONS = fuzz.DEFAULT_CONFIG.without(*fuzz.EXACTNESS_FEATURES)
EXACTNESS_FAMILIES = fuzz.DEFAULT_CONFIG  # every family, objects the function makes included
# the checker's words when a call raised the very object an earlier call raised (diff.Pairing)
_REUSED = re.compile(r"^exception of call \d+: compiled has the same object as exception of call \d+, "
                     r"eager has a different one$")


def _check(program: fuzz.Program) -> list[fuzz.Difference]:
    return fuzz.check_program(program, fuzz.autograph_compiler("eager"), timeout_s=60.0)


@pytest.mark.fuzz
@settings(max_examples=40, **_SETTINGS)
@given(fuzz.programs(TENSOR_FAMILIES))
def test_compiled_programs_behave_like_eager(program):
    differences = _check(program)
    assert not differences, fuzz.format_failure(program, differences)


@pytest.mark.fuzz
@pytest.mark.slow
@settings(max_examples=400, **_SETTINGS)
@given(fuzz.programs(TENSOR_FAMILIES))
def test_compiled_programs_behave_like_eager_long(program):
    differences = _check(program)
    assert not differences, fuzz.format_failure(program, differences)


class ReusedExceptionObject(AssertionError):
    """A compiled call raised the exception object an earlier call raised (issue 13)."""


@pytest.mark.fuzz
def test_exceptions_the_function_raises_are_fresh_objects():
    """Programs with ``raise``/``assert`` statements: each call must raise a new object.

    Every difference other than a reused exception object fails this test outright.
    """
    reused = []
    for seed in range(80):
        program = fuzz.generate_program(13_000_000 + seed, OWN_EXCEPTIONS)
        if not re.search(r"^\s+(raise \w+\(|assert )", program.source, re.MULTILINE):
            continue
        differences = _check(program)
        other = [d for d in differences if not (d.kind == "exception" and _REUSED.match(d.detail))]
        assert not other, fuzz.format_failure(program, other)
        reused += [(program, differences)] if differences else []
    if reused:
        program, differences = reused[0]
        raise ReusedExceptionObject(f"{len(reused)} programs raised a reused exception object; the first:\n"
                                    + fuzz.format_failure(program, differences))


@pytest.mark.fuzz
@settings(max_examples=30, **_SETTINGS)
@given(fuzz.programs(EXACTNESS_FAMILIES))
def test_compiled_programs_with_exactness_constructs_behave_like_eager(program):
    differences = _check(program)
    assert not differences, fuzz.format_failure(program, differences)
