"""Fuzz regression (found by scripts/fuzz.py --seed 3, program seed 3000166, 2026-11-21, minimised).

Observed difference (passes since capture commit d9433ba, dynamic sizes never formatted as text at capture time; kept as a regression test):
    call 2: exception: eager raised builtins.ValueError: y too large: shape (4, 3); compiled raised builtins.ValueError: y too large: shape (s26, 3)
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, alpha=0.5):\n    if y.sum() > 2.0:\n        raise ValueError(f"y too large: shape {tuple(y.shape)}")\n    return t16\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 3], ['C', 2]], 'alt_a': 6, 'ints': [1, 2], 'inputs_seed': 3000166, 'generator_seed': 3000166}, source=SOURCE))
OBSERVED = 'call 2: exception: eager raised builtins.ValueError: y too large: shape (4, 3); compiled raised builtins.ValueError: y too large: shape (s26, 3)'
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: eager raised builtins.ValueError: y too large: shape (N, N); compiled raised builtins.ValueError: y too large: shape (sN, N)'
