"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000157, 2026-11-25, minimised).

Observed difference:
    call 0: global_state: module globals after call 0['CAUGHT']: length 0 vs 1
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Block0(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(5, 5, bias=False)\n        self.register_buffer(\'offset\', torch.linspace(-1.0, 1.0, 5))\n    def forward(self, x):\n        return self.lin(x) - self.offset\n\n\nblock0 = Block0()\n\nCAUGHT = []\n\n\ndef fn(x, items):\n    l7 = items\n    l7.append(x)\n    flag8 = l7 is items\n    t9 = block0(x)\n    print("shape", tuple(t9.shape))\n    try:\n        if not flag8:\n            raise ValueError("bad value", 3)\n    except ValueError as e:\n        CAUGHT.append(e)\n    t18 = t9.amax(dim=-1, keepdim=True)\n    return (t18.sum(), t18)\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}], 'dims': [['A', 5], ['B', 5], ['C', 5]], 'alt_a': 1, 'ints': [2, 4], 'inputs_seed': 13000157, 'generator_seed': 13000157, 'strings': ['ba', 'abc'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 0: global_state: module globals after call 0['CAUGHT']: length 0 vs 1"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "global_state: module globals after call N['<name>']: length N vs N"
