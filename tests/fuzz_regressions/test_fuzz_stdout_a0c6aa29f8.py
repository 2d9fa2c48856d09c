"""Fuzz regression (found by scripts/fuzz.py --seed 20261125, program seed 20261125004083, 2026-11-25, minimised).

Observed difference:
    call 0: stdout: eager printed '', compiled printed 'caught RuntimeError/n'
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Block0(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(2, 2, bias=True)\n        self.register_buffer(\'offset\', torch.linspace(-1.0, 1.0, 2))\n        self.scale = 0.5\n    def forward(self, x):\n        return torch.sigmoid(self.lin(x) * self.scale + self.offset)\n\n\nblock0 = Block0()\n\nclass Box:\n    """A plain object made inside fn."""\n\n\nMODE = "fast"\n\n\ndef fn(x, y, n, items, d, alpha=0.5):\n    if float(x.min()) < -1.0:\n        try:\n            dv0 = d.keys()\n            d.pop(\'a\', None)\n            for key in dv0:\n                y = y + len(key)\n        except Exception as e:\n            print("caught", type(e).__name__)\n    t3 = x.cumsum(dim=-1)\n    s4 = MODE + \'abc\'\n    t5 = block0(y)\n    f6 = t5.max().item() * 2\n    box7 = Box()\n    box7.value = x\n    flag8 = id(y) == id(y)\n    f9 = t5.sum().item()\n    t5 -= t5\n    return [t5, t3, n]\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 1}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 2], ['C', 5]], 'alt_a': 1, 'ints': [0, 4], 'inputs_seed': 20261125004083, 'generator_seed': 20261125004083, 'strings': ['xyz', 'ba'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 0: stdout: eager printed '', compiled printed 'caught RuntimeError\\n'"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "stdout: eager printed '', compiled printed 'caught RuntimeError\\n'"
