"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000129, 2026-11-25, minimised).

Observed difference:
    call 0: result: result of call 0: leaf 0: max abs difference 4.86
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, n, items, s, alpha=0.5):\n    buf11 = x.new_zeros(x.shape[-1])\n    torch.sum(x, dim=0, out=buf11)\n    return buf11\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 1}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 2], ['C', 5]], 'alt_a': 2, 'ints': [0, 0], 'inputs_seed': 13000129, 'generator_seed': 13000129, 'strings': ['xyz', 'abcabc'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0: leaf 0: max abs difference 4.86'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N: leaf N: max abs difference N'
