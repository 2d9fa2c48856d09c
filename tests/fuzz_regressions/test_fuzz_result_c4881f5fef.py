"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000012, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 1: result: result of call 1['extra']: compiled has the same object as result of call 0['extra'], eager has a different one
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, w, n, s):\n    tags0 = set()\n    t8 = x[0]\n    return {'out': t8, 'extra': tags0}\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}], 'dims': [['A', 2], ['B', 3], ['C', 5]], 'alt_a': 6, 'ints': [2, 1], 'inputs_seed': 13000012, 'generator_seed': 13000012, 'strings': ['', 'aXb'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 1: result: result of call 1['extra']: compiled has the same object as result of call 0['extra'], eager has a different one"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "result: result of call N['<name>']: compiled has the same object as result of call N['<name>'], eager has a different one"
