"""Fuzz regression (found by scripts/fuzz.py --seed 20261125, program seed 20261125003210, 2026-11-25, minimised).

Observed difference:
    call 0: exception: eager returned normally; compiled raised builtins.RuntimeError: dictionary changed size during iteration
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\nclass FuzzError(Exception):\n    def __init__(self, message, code=0):\n        super().__init__(message)\ndef fn(x, bias, n, o, d):\n    t7 = torch.nonzero(x > 0).float()\n    dv8 = d.values()\n    d[\'n\'] = x\n    k9 = len(dv8)\n    try:\n        dv10 = d.keys()\n        d.update(e=x)\n        for key in dv10:\n            x = x + len(key)\n        raise FuzzError("bad", 7)\n    except FuzzError as e:\n        t7 = t7 + 1\n    return t7, n\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}], 'dims': [['A', 4], ['B', 4], ['C', 3]], 'alt_a': 2, 'ints': [2, 1], 'inputs_seed': 20261125003210, 'generator_seed': 20261125003210, 'strings': ['aXb', 'abc'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 0: exception: eager returned normally; compiled raised builtins.RuntimeError: dictionary changed size during iteration'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: eager returned normally; compiled raised builtins.RuntimeError: dictionary changed size during iteration'
