"""Fuzz regression (found by scripts/fuzz.py --seed 20261125, program seed 20261125008027, 2026-11-25, minimised).

Observed difference:
    call 1: result: result of call 1[1] attributes['count']: 6 != 9
    call 1: input_mutation: argument 'o' after call 1 attributes['count']: 6 != 9
    call 1: global_state: module globals after call 1['OBJ'] attributes['count']: 6 != 9
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    def __init__(self):\n        self.count = 0\nOBJ = Obj()\n\n\ndef fn(x, y, w, n, o, it, alpha=0.5):\n    for i1 in range(2):\n        w = w * 0.5 + i1\n        k2 = sum(1 for _ in it)\n        o.count = o.count + k2\n    p3 = (w, w, w,)\n    t4, t5, t6 = p3\n    return t6, o\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'it', 'kind': 'iter', 'shape': ('A', 'B'), 'length': 3}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 4], ['C', 4]], 'alt_a': 2, 'ints': [4, 2], 'inputs_seed': 20261125008027, 'generator_seed': 20261125008027, 'strings': ['ba', ''], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 1: result: result of call 1[1] attributes['count']: 6 != 9\ncall 1: input_mutation: argument 'o' after call 1 attributes['count']: 6 != 9\ncall 1: global_state: module globals after call 1['OBJ'] attributes['count']: 6 != 9"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N[N] attributes['<name>']: N != N"
