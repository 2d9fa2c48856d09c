"""Fuzz regression (found by scripts/fuzz.py --seed 20261202, program seed 20261202007806, 2026-11-26, minimised).

Observed difference:
    call 0: global_state: module globals after call 0: keys ['LAST'] vs []
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, bias, n, d):\n    global LAST, SCALE\n    t5 = bias[0]\n    LAST = bias\n    bias -= t5\n    return t14\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 5], ['B', 5], ['C', 3]], 'alt_a': 6, 'ints': [4, 0], 'inputs_seed': 20261202007806, 'generator_seed': 20261202007806, 'strings': ['ab', 'b-a'], 'alias_inputs': True}, source=SOURCE))
OBSERVED = "call 0: global_state: module globals after call 0: keys ['LAST'] vs []"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "global_state: module globals after call N['<name>']: eager has the same object as argument '<name>' of call N, compiled has a different one"
