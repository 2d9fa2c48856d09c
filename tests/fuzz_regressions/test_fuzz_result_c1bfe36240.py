"""Fuzz regression (found by fuzz program 9000058 (exactness families without made_objects, 2026-11-25), reduced by hand).

Observed difference:
    call 0: result: result of call 0[2]: eager has the same object as result of call 0[1], compiled has a different one
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import torch\n\n\ndef fn(x):\n    tags = set()\n    tags.add(2)\n    return [x * 2, tags, tags]\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 4], ['B', 5]], 'alt_a': 2, 'ints': [4, 1], 'inputs_seed': 9000058, 'generator_seed': None, 'strings': ['abc', 'xyz'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0[2]: eager has the same object as result of call 0[1], compiled has a different one'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N[N]: eager has the same object as result of call N[N], compiled has a different one'
