"""Fuzz regression (found by scripts/fuzz.py --seed 1, program seed 1000016, 2026-11-25, minimised).

Observed difference:
    call 2: result: result of call 2['extra']: [4] vs []
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nSCALE = 1.5\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, y, bias, n, s, o, d):\n    t7 = y.t()\n    tags9 = set()\n    tags9.add(n)\n    t10 = t7 * SCALE\n    t14 = torch.relu((-t10))\n    return {\'out\': t14, \'extra\': tags9}\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 2], ['B', 4], ['C', 2]], 'alt_a': 4, 'ints': [3, 4], 'inputs_seed': 1000016, 'generator_seed': 1000016, 'strings': ['b-a', 'abc'], 'alias_inputs': True}, source=SOURCE))
OBSERVED = "call 2: result: result of call 2['extra']: [4] vs []"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N['<name>']: [N] vs []"
