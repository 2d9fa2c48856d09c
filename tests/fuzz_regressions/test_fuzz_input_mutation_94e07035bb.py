"""Fuzz regression (found by generate_program(9100055, DEFAULT_CONFIG.without('made_objects')), 2026-11-25, minimised).

Observed difference:
    call 1: input_mutation: argument 'o' after call 1 attributes: keys [] vs ['tmp']
    call 1: global_state: module globals after call 1['OBJ'] attributes: keys [] vs ['tmp']
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, w, bias, n, s, o):\n    if hasattr(o, \'tmp\'):\n        del o.tmp\n    else:\n        o.tmp = n\n    try:\n        buf2 = y0.new_zeros(y0.shape[-1])\n    except Exception as e:\n        x = x * 0.5\n    dd7 = {\'a\': x, \'b\': x}\n    dd7[\'n\'] = x\n    return bias\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 3], ['C', 2]], 'alt_a': 6, 'ints': [2, 3], 'inputs_seed': 9100055, 'generator_seed': 9100055, 'strings': ['b-a', 'aXb'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 1: input_mutation: argument 'o' after call 1 attributes: keys [] vs ['tmp']\ncall 1: global_state: module globals after call 1['OBJ'] attributes: keys [] vs ['tmp']"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "input_mutation: argument '<name>' after call N attributes: keys [] vs ['<name>']"
