"""Fuzz regression (found by scripts/fuzz.py --seed 20261125, program seed 20261125007411, 2026-11-25, minimised).

Observed difference:
    call 2: result: result of call 2[1]: '/4' != '/s9'
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Block0(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(2, 2, bias=True)\n        self.register_buffer(\'offset\', torch.linspace(-1.0, 1.0, 2))\n        self.scale = 0.5\n    def forward(self, x):\n        return torch.relu(self.lin(x) * self.scale + self.offset)\n\n\nblock0 = Block0()\n\nMODE = "fast"\n\n\ndef fn(x, y, w, n, s):\n    global SCALE\n    s0 = \'{}/{}\'.format(s, n)\n    t4 = block0(x)\n    t6 = torch.tanh((-y))\n    s7 = s[::-1]\n    try:\n        dd8 = {\'a\': t6, \'b\': y}\n        dv9 = dd8.items()\n        dd8[\'b\'] = y * 2\n    except ValueError as e:\n        t4 = t4 + 1\n    buf10 = t4.new_zeros(t4.shape[-1])\n    return buf10, s0\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 2], ['C', 4]], 'alt_a': 2, 'ints': [2, 4], 'inputs_seed': 20261125007411, 'generator_seed': 20261125007411, 'strings': ['', 'abcabc'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 2: result: result of call 2[1]: '/4' != '/s9'"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N[N]: '/N' != '/<var>'"
