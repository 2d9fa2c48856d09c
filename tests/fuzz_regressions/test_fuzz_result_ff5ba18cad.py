"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000006, 2026-11-25, minimised).

Observed difference:
    call 0: result: result of call 0['extra'][0]: leaf 0: max abs difference 6.16
    call 0: input_mutation: argument 'w' after call 0: leaf 0: max abs difference 6.16
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, w, n, s, o):\n    l0 = [w, w * 2]\n    for i1, v2 in enumerate(l0):\n        with torch.no_grad():\n            torch.neg(v2, out=w)\n    t6 = x * (1.5 if s.upper() == \'ABC\' else -0.5)\n    return {\'out\': t6, \'extra\': l0}\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}], 'dims': [['A', 5], ['B', 4], ['C', 3]], 'alt_a': 4, 'ints': [1, 0], 'inputs_seed': 13000006, 'generator_seed': 13000006, 'strings': ['ba', 'ab'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 0: result: result of call 0['extra'][0]: leaf 0: max abs difference 6.16\ncall 0: input_mutation: argument 'w' after call 0: leaf 0: max abs difference 6.16"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N['<name>'][N]: leaf N: max abs difference N"
