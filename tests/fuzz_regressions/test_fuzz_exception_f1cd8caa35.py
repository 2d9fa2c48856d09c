"""Fuzz regression (found by scripts/fuzz.py --seed 3, program seed 3000273, 2026-11-21, minimised).

Observed difference (passes since capture commit d9433ba, dynamic sizes never formatted as text at capture time; kept as a regression test):
    call 0: exception: eager raised builtins.ValueError: t16 too large: shape (13, 2); compiled raised builtins.ValueError: t16 too large: shape (s26, 2)
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, alpha=0.5):\n    t16 = torch.nonzero(x > 0).float()\n    if float(t16.min()) < -1.0:\n        t31 = sum(v.sum() for v in [t27, t27.abs()])\n    else:\n        if t16.sum() > 2.0:\n            raise ValueError(f"t16 too large: shape {tuple(t16.shape)}")\n    return {\'out\': t27, \'extra\': alpha}\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 5], ['B', 5], ['C', 3]], 'alt_a': 3, 'ints': [1, 4], 'inputs_seed': 3000273, 'generator_seed': 3000273}, source=SOURCE))
OBSERVED = 'call 0: exception: eager raised builtins.ValueError: t16 too large: shape (13, 2); compiled raised builtins.ValueError: t16 too large: shape (s26, 2)'
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: eager raised builtins.ValueError: <var> too large: shape (N, N); compiled raised builtins.ValueError: <var> too large: shape (sN, N)'
