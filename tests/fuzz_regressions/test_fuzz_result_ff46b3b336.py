"""Fuzz regression (found by fuzz programs 9000011, 9000115 (exactness families, 2026-11-25), reduced by hand).

Observed difference:
    call 1: result: result of call 1[1]: compiled has the same object as result of call 0[1], eager has a different one
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import torch\n\n\ndef fn(x):\n    marker = object()\n    return [x * 2, marker]\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 4], ['B', 5]], 'alt_a': 2, 'ints': [4, 1], 'inputs_seed': 9000115, 'generator_seed': None, 'strings': ['abc', 'xyz'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 1: result: result of call 1[1]: compiled has the same object as result of call 0[1], eager has a different one'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N[N]: compiled has the same object as result of call N[N], eager has a different one'
