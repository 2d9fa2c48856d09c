"""Fuzz regression (found by scripts/fuzz.py --seed 1, program seed 1000007, 2026-11-21, minimised).

Observed difference (passes since capture commit c6a9b82, augmented assignments and in-place calls kept; kept as a regression test):
    call 0: input_mutation: argument 'x' after the call: leaf 0: max abs difference 2.39
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, n, items):\n    x -= y\n    t10 = y.unsqueeze(0)\n    return t10\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}], 'dims': [['A', 4], ['B', 4], ['C', 3]], 'alt_a': 1, 'ints': [4, 4], 'inputs_seed': 1000007, 'generator_seed': 1000007}, source=SOURCE))
OBSERVED = "call 0: input_mutation: argument 'x' after the call: leaf 0: max abs difference 2.39"
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "input_mutation: argument '<name>' after the call: leaf N: max abs difference N"
