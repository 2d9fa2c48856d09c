"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000014, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 0: result: result of call 0[1]: True != False
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, y, o, it):\n    flag16 = x.t_().t_() is x\n    t17 = x * x\n    t18 = t17 * x\n    return [t18, flag16, y]\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'it', 'kind': 'iter', 'shape': ('A', 'B'), 'length': 3}], 'dims': [['A', 3], ['B', 4], ['C', 5]], 'alt_a': 2, 'ints': [2, 4], 'inputs_seed': 13000014, 'generator_seed': 13000014, 'strings': ['abcabc', 'aXb'], 'alias_inputs': True}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0[1]: True != False'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N[N]: True != False'
