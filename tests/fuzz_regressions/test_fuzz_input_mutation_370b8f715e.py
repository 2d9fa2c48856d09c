"""Fuzz regression (found by scripts/fuzz.py --seed 20261125, program seed 20261125004262, 2026-11-25, minimised).

Observed difference:
    call 1: input_mutation: argument 'o' after call 1 attributes['count']: 4 != 5
    call 1: global_state: module globals after call 1['OBJ'] attributes['count']: 4 != 5
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    def __init__(self):\n        self.count = 0\nOBJ = Obj()\n\n\ndef fn(x, bias, n, items, s, o, d):\n    global COUNTER\n    t8 = x.sum()\n    t9 = torch.sin((torch.exp(x.clamp(max=3.0))))\n    l11 = [bias, bias * 2]\n    for i12, v13 in enumerate(l11):\n        o.count += 1\n    t21 = torch.cat([t9, t9.cos()], dim=0)\n    buf22 = torch.zeros_like(t21)\n    t8.mul_(0.5)\n    flag24 = 'scale' in o.__dict__\n    return buf22\n\n\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 2], ['B', 3], ['C', 2]], 'alt_a': 5, 'ints': [0, 3], 'inputs_seed': 20261125004262, 'generator_seed': 20261125004262, 'strings': ['ab', 'cab'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 1: input_mutation: argument 'o' after call 1 attributes['count']: 4 != 5\ncall 1: global_state: module globals after call 1['OBJ'] attributes['count']: 4 != 5"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "input_mutation: argument '<name>' after call N attributes['<name>']: N != N"
