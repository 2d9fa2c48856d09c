"""Fuzz regression (found by scripts/fuzz.py --seed 1, program seed 1000165, 2026-11-21, minimised).

Observed difference (passes since capture commit c6a9b82, augmented assignments and in-place calls kept; kept as a regression test):
    call 0: result: result: leaf 0: max abs difference 0.201
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef helper_0(a, scale=1.5, shift=0):\n    t6 = a[1:]\n    if a.shape[0] > 3:\n        t7, *l8 = [t6, t6]\n        t7 *= t6\n    return a * scale + shift\n\nclass Block0(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.register_buffer('offset', torch.linspace(-1.0, 1.0, 4))\n    def forward(self, x):\n        return x + self.offset\n\n\nblock0 = Block0()\n\ndef fn(x, y, w):\n    t18 = block0(y)\n    t19 = helper_0(t18, shift=-1.0)\n    t20 = torch.sin(t19)\n    t22 = t20.cos()\n    return t22\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}], 'dims': [['A', 5], ['B', 4], ['C', 2]], 'alt_a': 3, 'ints': [1, 2], 'inputs_seed': 1000165, 'generator_seed': 1000165}, source=SOURCE))
OBSERVED = 'call 0: result: result: leaf 0: max abs difference 0.201'
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result: leaf N: max abs difference N'
