"""Fuzz regression (found by scripts/fuzz.py --seed 1, program seed 1000955, 2026-11-21, minimised).

Observed difference (passes as of capture commit 9835c0d; kept as a regression test):
    call 0: input_mutation: argument 'items' after the call[2]: leaf 0: max abs difference 0.991
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef helper_0(a):\n    a += a\n    return a, a.cos()\n\nclass Block1(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(4, 4, bias=True)\n        self.register_buffer(\'offset\', torch.linspace(-1.0, 1.0, 4))\n        self.calls = 0\n    def forward(self, x):\n        return self.lin(x) - self.offset\n\n\nblock1 = Block1()\ndef fn(x, y, bias, items, alpha=0.5):\n    t14 = y.reshape(-1)\n    t15, t16 = helper_0(x)\n    t17 = items[1]\n    t18, t19 = helper_0(y)\n    t27 = torch.cat([x, x.cos()], dim=0)\n    try:\n        t28 = block1(t19)\n        t29, t30 = helper_0(t19)\n    except Exception as e:\n        y = y * 0.5\n        print("caught", type(e).__name__)\n    items.append(t19)\n    t31 = t15 ** 2\n    t32 = torch.tanh((F.gelu(x)))\n    assert t17.shape[0] != 5, "five rows are not allowed"\n    f33 = t14.max().item() * 2\n    k34 = int(t14.argmax()) % 3\n    return {\'out\': t32, \'extra\': y}\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 4], ['C', 3]], 'alt_a': 1, 'ints': [1, 3], 'inputs_seed': 1000955, 'generator_seed': 1000955}, source=SOURCE))
OBSERVED = "call 0: input_mutation: argument 'items' after the call[2]: leaf 0: max abs difference 0.991"
BACKEND = 'eager'


@pytest.mark.fuzz
def test_compiled_matches_eager():
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "input_mutation: argument '<name>' after the call[N]: leaf N: max abs difference N"
