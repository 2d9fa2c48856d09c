"""Fuzz regression (found by scripts/fuzz.py --seed 14, program seed 14000092, 2026-11-25, minimised).

Observed difference:
    call 1: exception: exception of call 1: compiled has the same object as exception of call 0, eager has a different one
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef numbers(n):\n    for i in range(n):\n        yield i * 0.5\n\n\ndef fn(x, w, bias, s, g):\n    assert x.dim() < 2, "expected a vector"\n    try:\n        flag16 = \'a\' <= s[-1:] <= \'b\'\n    except FuzzError as e:\n        t0 = t0 * len(e.args)\n    return (t27.sum(), t27)\n\n\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'w', 'kind': 'tensor', 'shape': ('B', 'C'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'g', 'kind': 'gen', 'shape': (), 'length': 4}], 'dims': [['A', 4], ['B', 5], ['C', 5]], 'alt_a': 5, 'ints': [4, 1], 'inputs_seed': 14000092, 'generator_seed': 14000092, 'strings': ['abc', 'b-a'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 1: exception: exception of call 1: compiled has the same object as exception of call 0, eager has a different one'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: exception of call N: compiled has the same object as exception of call N, eager has a different one'
