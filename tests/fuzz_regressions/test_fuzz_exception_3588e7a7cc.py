"""Fuzz regression (found by scripts/fuzz.py --seed 20261125, program seed 20261125005698, 2026-11-25, minimised).

Observed difference:
    call 0: exception: eager raised builtins.KeyError: 'inner'; compiled returned normally
    call 0: stdout: eager printed '', compiled printed 'caught RuntimeError/n'
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\nclass Obj:\n    kind = "base"\nOBJ = Obj()\n\n\ndef fn(x, bias, n, o, d, alpha=0.5):\n    t7 = x[0]\n    try:\n        dv8 = d.keys()\n        d.setdefault(\'c\', x)\n        for key in dv8:\n            x = x + len(key)\n        try:\n            t9 = t7 - t7\n        except FuzzError as e:\n            x = x * len(e.args)\n        if t7.shape[0] > 3:\n            raise KeyError("inner")\n    except (IndexError, RuntimeError) as e:\n        print("caught", type(e).__name__)\n    f10 = bias.max().item() * 2\n    k11 = int(bias.argmax()) % 3\n    return (t7.sum(), t7)\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 'o', 'kind': 'obj', 'shape': (), 'length': 0}, {'name': 'd', 'kind': 'dict', 'shape': ('A', 'B'), 'length': 0}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 4], ['B', 4], ['C', 2]], 'alt_a': 2, 'ints': [2, 0], 'inputs_seed': 20261125005698, 'generator_seed': 20261125005698, 'strings': ['ba', 'ab'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = "call 0: exception: eager raised builtins.KeyError: 'inner'; compiled returned normally\ncall 0: stdout: eager printed '', compiled printed 'caught RuntimeError\\n'"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = "exception: eager raised builtins.KeyError: '<name>'; compiled returned normally"
