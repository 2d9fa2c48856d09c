"""Fuzz regression (found by scripts/fuzz.py --seed 3, program seed 3000031, 2026-11-21, minimised).

Observed difference (passes since capture commit d9433ba, dynamic sizes never formatted as text at capture time; kept as a regression test):
    call 0: exception: eager raised builtins.ValueError: x too large: shape (4, 4); compiled raised builtins.ValueError: x too large: shape (s26, 4)
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, w):\n    global LAST\n    if x.sum() > 2.0:\n        raise ValueError(f"x too large: shape {tuple(x.shape)}")\n    return w, k7\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}], 'dims': [['A', 4], ['B', 4], ['C', 5]], 'alt_a': 6, 'ints': [2, 2], 'inputs_seed': 3000031, 'generator_seed': 3000031}, source=SOURCE))
OBSERVED = 'call 0: exception: eager raised builtins.ValueError: x too large: shape (4, 4); compiled raised builtins.ValueError: x too large: shape (s26, 4)'
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: eager raised builtins.ValueError: x too large: shape (N, N); compiled raised builtins.ValueError: x too large: shape (sN, N)'
