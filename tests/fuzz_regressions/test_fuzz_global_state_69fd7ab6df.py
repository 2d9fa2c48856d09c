"""Fuzz regression (found by scripts/fuzz.py --seed 20261203, program seed 20261203002112, 2026-11-26, minimised).

Observed difference:
    call 2: global_state: module globals after call 2['TRACE']: length 2 vs 1
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nSCALE = 1.5\ndef numbers(n):\n    for i in range(n):\n        yield i * 0.5\n\n\nclass Tracked:\n    def __init__(self, name):\n        self.name = name\n\n    def __enter__(self):\n        TRACE.append("enter " + self.name)\n        return self\n\n    def __exit__(self, typ, exc, tb):\n        TRACE.append("exit " + self.name)\n        return False\n\n\nTRACE = []\n\n\ndef fn(x, w, n, items, s, g):\n    t7 = w[-1]\n    t8 = w * SCALE\n    if n > 2:\n        with Tracked(\'a\'):\n            t18 = t8[0]\n            print("in", TRACE[-1])\n            t19 = torch.minimum(w, t7)\n        w *= t7\n    j20 = 0\n    p23 = (t7, t7,)\n    t24, t25 = p23\n    t26 = x * WEIGHT\n    t25 += t25\n    t27 = helper_0(t26)\n    return t27\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'items', 'kind': 'list', 'shape': ('A', 'B'), 'length': 2}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'g', 'kind': 'gen', 'shape': (), 'length': 4}], 'dims': [['A', 4], ['B', 2], ['C', 3]], 'alt_a': 1, 'ints': [2, 3], 'inputs_seed': 20261203002112, 'generator_seed': 20261203002112, 'strings': ['aXb', ''], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 2: global_state: module globals after call 2['TRACE']: length 2 vs 1"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "global_state: module globals after call N['<name>']: length N vs N"
