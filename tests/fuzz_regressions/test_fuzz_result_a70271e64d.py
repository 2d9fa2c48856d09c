"""Fuzz regression (found by scripts/fuzz.py --seed 1, program seed 1000486, 2026-11-21, minimised).

Observed difference (passes since capture commit 16e4510 "graphs that only mutate inputs still run"; kept as a regression test):
    call 0: result: result['out']: leaf 0: max abs difference 1.09
    call 0: input_mutation: argument 'x' after the call: leaf 0: max abs difference 1.09
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x):\n    x.mul_(0.5)\n    return {'out': x, 'extra': x}\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 4], ['B', 4], ['C', 2]], 'alt_a': 1, 'ints': [3, 2], 'inputs_seed': 1000486, 'generator_seed': 1000486}, source=SOURCE))
OBSERVED = "call 0: result: result['out']: leaf 0: max abs difference 1.09\ncall 0: input_mutation: argument 'x' after the call: leaf 0: max abs difference 1.09"
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result['<name>']: leaf N: max abs difference N"
