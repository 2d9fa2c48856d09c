"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000098, 2026-11-25, minimised).

Observed difference:
    call 1: result: result of call 1[1]: compiled has the same object as result of call 0[1], eager has a different one
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Block1(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(3, 3, bias=True)\n        self.register_buffer(\'offset\', torch.linspace(-1.0, 1.0, 3))\n        self.scale = 0.5\n    def forward(self, x):\n        return torch.sigmoid(self.lin(x) * self.scale + self.offset)\n\n\nblock1 = Block1()\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, y, bias, s, o, it):\n    err36 = ValueError("made here", 3)\n    t38 = block1(x)\n    return t38, err36\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'it', 'kind': 'iter', 'shape': ('A', 'B'), 'length': 3}], 'dims': [['A', 4], ['B', 3], ['C', 4]], 'alt_a': 3, 'ints': [1, 3], 'inputs_seed': 13000098, 'generator_seed': 13000098, 'strings': ['ba', 'b-a'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 1: result: result of call 1[1]: compiled has the same object as result of call 0[1], eager has a different one'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N[N]: compiled has the same object as result of call N[N], eager has a different one'
