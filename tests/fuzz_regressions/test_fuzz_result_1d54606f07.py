"""Fuzz regression (found by scripts/fuzz.py --seed 1, program seed 1000008, 2026-11-21, minimised).

Observed difference (passes since capture commit 16e4510 "graphs that only mutate inputs still run"; kept as a regression test):
    call 0: result: result[0]: leaf 0: max abs difference 0.688
    call 0: input_mutation: argument 'y' after the call: leaf 0: max abs difference 1.09
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nSCALE = 1.5\ndef helper_1(a, b):\n    global SCALE\n    SCALE = SCALE * 0.5 + 1\n    return b\n\ndef fn(x, y, w, n):\n    y.mul_(0.5)\n    t12 = helper_1(y, y)\n    t20 = t12.view(-1, 4)\n    return (t20.sum(), t20)\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 4], ['C', 5]], 'alt_a': 2, 'ints': [2, 2], 'inputs_seed': 1000008, 'generator_seed': 1000008}, source=SOURCE))
OBSERVED = "call 0: result: result[0]: leaf 0: max abs difference 0.688\ncall 0: input_mutation: argument 'y' after the call: leaf 0: max abs difference 1.09"
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result[N]: leaf N: max abs difference N'
