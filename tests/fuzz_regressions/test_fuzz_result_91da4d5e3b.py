"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000091, 2026-11-25, minimised).

Observed difference:
    call 0: result: result of call 0: leaf 0: (6, 4) torch.float32 vs (0,) torch.float32
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, w, bias, n, items, s, o, d):\n    buf2 = w.new_empty(0)\n    torch.cat([w, w.cos()], dim=0, out=buf2)\n    return buf2\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 1}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 5], ['B', 3], ['C', 4]], 'alt_a': 2, 'ints': [2, 0], 'inputs_seed': 13000091, 'generator_seed': 13000091, 'strings': ['ba', 'aXb'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0: leaf 0: (6, 4) torch.float32 vs (0,) torch.float32'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N: leaf N: (N, N) torch.floatN vs (N,) torch.floatN'
