"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000013, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 0: result: result of call 0['extra']: length 3 vs 2
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef numbers(n):\n    for i in range(n):\n        yield i * 0.5\n\n\ndef fn(x, w, n, items, s, o, g):\n    dd8 = {\'a\': x, \'b\': x}\n    dv9 = dd8.values()\n    dd8.setdefault(\'c\', x)\n    l10 = list(dv9)\n    t11 = x + 1.5\n    return {\'out\': t11, \'extra\': l10}\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'g', 'kind': 'gen', 'shape': (), 'length': 4}], 'dims': [['A', 2], ['B', 5], ['C', 2]], 'alt_a': 5, 'ints': [1, 4], 'inputs_seed': 13000013, 'generator_seed': 13000013, 'strings': ['ab', ''], 'alias_inputs': True}, source=SOURCE))
OBSERVED = "call 0: result: result of call 0['extra']: length 3 vs 2"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N['<name>']: length N vs N"
