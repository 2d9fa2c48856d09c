"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000076, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 0: result: result of call 0['extra']: True != False
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef helper_0(a):\n    return a, a.cos()\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, y, s, o, alpha=0.5):\n    y8 = y.clamp_(-1.0, 1.0)\n    flag9 = y8 is y\n    try:\n        raise ValueError("bad value", 3)\n    except ValueError as e:\n        x = x + 1\n    t10, t11 = helper_0(x)\n    t20 = t11 * y\n    return {\'out\': t20, \'extra\': flag9}\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 2], ['C', 5]], 'alt_a': 6, 'ints': [2, 1], 'inputs_seed': 13000076, 'generator_seed': 13000076, 'strings': ['b-a', 'ab'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 0: result: result of call 0['extra']: True != False"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N['<name>']: True != False"
