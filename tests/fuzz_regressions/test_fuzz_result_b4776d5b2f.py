"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000073, 2026-11-25, minimised).

Observed difference:
    call 0: result: result of call 0: leaf 0: max abs difference 1.33
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef helper_0(a, b):\n    t1 = a * -1.0\n    return t1\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, y, w, n, items, s, o):\n    buf3 = torch.zeros_like(y)\n    torch.tanh(y, out=buf3)\n    try:\n        t11 = buf3.amax(dim=-1, keepdim=True)\n    except ValueError as e:\n        x = x * len(e.args)\n    buf3 += buf3\n    t12 = helper_0(y, x)\n    t13 = max([y.sum(), buf3.sum(), t12.sum()])\n    return t13\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 4], ['C', 4]], 'alt_a': 3, 'ints': [3, 0], 'inputs_seed': 13000073, 'generator_seed': 13000073, 'strings': ['b-a', 'xyz'], 'alias_inputs': True}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0: leaf 0: max abs difference 1.33'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N: leaf N: max abs difference N'
