"""Fuzz regression (found by scripts/fuzz.py --seed 14, program seed 14000023, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 0: result: result of call 0[1]: length 1 vs 2
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, n, alpha=0.5):\n    dd11 = {'a': x, 'b': y}\n    dv12 = dd11.items()\n    dd11.pop('a', None)\n    l13 = list(dv12)\n    t21 = y.sum()\n    return t21, l13\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 5], ['B', 2], ['C', 2]], 'alt_a': 2, 'ints': [1, 3], 'inputs_seed': 14000023, 'generator_seed': 14000023, 'strings': ['ba', ''], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0[1]: length 1 vs 2'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N[N]: length N vs N'
