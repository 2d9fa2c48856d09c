"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000002, 2026-11-25, minimised).

Observed difference:
    call 3: exception: exception of call 3: compiled has the same object as exception of call 2, eager has a different one
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, y, w, bias, n, o, it):\n    if x.max() > 1.0:\n        raise RuntimeError("stop at bias")\n    return t16\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'it', 'kind': 'iter', 'shape': ('A', 'B'), 'length': 3}], 'dims': [['A', 2], ['B', 2], ['C', 5]], 'alt_a': 4, 'ints': [2, 2], 'inputs_seed': 13000002, 'generator_seed': 13000002, 'strings': ['b-a', 'abc'], 'alias_inputs': True}, source=SOURCE))
OBSERVED = 'call 3: exception: exception of call 3: compiled has the same object as exception of call 2, eager has a different one'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: exception of call N: compiled has the same object as exception of call N, eager has a different one'
