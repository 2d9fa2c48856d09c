"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000043, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 0: input_mutation: argument 'y' after call 0: leaf 0: max abs difference 1
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Block0(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(2, 2, bias=True)\n        self.register_buffer('offset', torch.linspace(-1.0, 1.0, 2))\n        self.scale = 0.5\n    def forward(self, x):\n        return F.gelu(self.lin(x) * self.scale + self.offset)\n\n\nblock0 = Block0()\n\ndef fn(x, y, s, it, alpha=0.5):\n    t10 = y * x\n    dd11 = {'a': x, 'b': x}\n    dv12 = dd11.keys()\n    dd11.update(e=x)\n    for key in dv12:\n        x = x + len(key)\n    y -= x\n    t15 = block0(t10)\n    return (t15.sum(), t15)\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'it', 'kind': 'iter', 'shape': ('A', 'B'), 'length': 3}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 2], ['C', 3]], 'alt_a': 4, 'ints': [3, 0], 'inputs_seed': 13000043, 'generator_seed': 13000043, 'strings': ['b-a', 'cab'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 0: input_mutation: argument 'y' after call 0: leaf 0: max abs difference 1"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "input_mutation: argument '<name>' after call N: leaf N: max abs difference N"
