"""Fuzz regression (found by scripts/fuzz.py --seed 13, program seed 13000203, 2026-11-25, minimised).

Observed difference (passes on main 673536e; kept as a regression test):
    call 0: result: result of call 0[1]: type dict_items vs tuple_iterator
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = "import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, w, bias, s):\n    t10 = 2 * w + 1.5\n    dd11 = {'a': x, 'b': y}\n    dv12 = dd11.items()\n    return [t10, dv12, t10]\n"

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 5], ['C', 5]], 'alt_a': 2, 'ints': [3, 2], 'inputs_seed': 13000203, 'generator_seed': 13000203, 'strings': ['xyz', 'cab'], 'alias_inputs': True}, source=SOURCE))
OBSERVED = 'call 0: result: result of call 0[1]: type dict_items vs tuple_iterator'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'result: result of call N[N]: type dict_items vs tuple_iterator'
