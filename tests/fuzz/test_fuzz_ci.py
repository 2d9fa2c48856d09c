"""Bounded differential fuzzing of ``autograph.compile(fn, backend="eager")`` (issue #9).

40 generated programs, fixed seed (hypothesis ``derandomize``), 5 calls each with
fresh inputs, a second int value and a second batch size. Skips, saying why, while
``autograph.compile`` cannot be imported. A failure prints the whole program;
``scripts/fuzz.py`` finds, minimises and saves such programs as regression tests.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from autograph.testing import fuzz

_COMPILE, _WHY_MISSING = fuzz.autograph_compile_or_reason()


@pytest.mark.fuzz
@pytest.mark.skipif(_COMPILE is None, reason=f"cannot fuzz autograph.compile: {_WHY_MISSING}")
@settings(max_examples=40, derandomize=True, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking in CI: scripts/fuzz.py minimises
          suppress_health_check=list(HealthCheck))
@given(fuzz.programs())
def test_compiled_programs_behave_like_eager(program):
    differences = fuzz.check_program(program, fuzz.autograph_compiler("eager"), timeout_s=60.0)
    assert not differences, fuzz.format_failure(program, differences)
