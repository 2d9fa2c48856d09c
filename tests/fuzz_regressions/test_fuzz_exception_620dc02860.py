"""Fuzz regression (found by scripts/fuzz.py --seed 14, program seed 14000035, 2026-11-25, minimised).

Observed difference:
    call 0: exception: eager raised builtins.RuntimeError: stop at bias; compiled returned normally
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef numbers(n):\n    for i in range(n):\n        yield i * 0.5\n\n\ndef fn(x, bias, n, s, it, g, alpha=0.5):\n    t5 = bias.mean(dim=0)\n    if s in \'xabcx\':\n        raise RuntimeError("stop at bias")\n    return (t5.sum(), t5)\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'bias', 'kind': 'tensor', 'shape': ('B',), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}, {'name': 's', 'kind': 'str', 'shape': (), 'length': 0}, {'name': 'it', 'kind': 'iter', 'shape': ('A', 'B'), 'length': 3}, {'name': 'g', 'kind': 'gen', 'shape': (), 'length': 4}, {'name': 'alpha', 'kind': 'float', 'shape': (), 'length': 0}], 'dims': [['A', 3], ['B', 2], ['C', 5]], 'alt_a': 2, 'ints': [1, 0], 'inputs_seed': 14000035, 'generator_seed': 14000035, 'strings': ['', 'xyz'], 'alias_inputs': False}, source=SOURCE))
OBSERVED = 'call 0: exception: eager raised builtins.RuntimeError: stop at bias; compiled returned normally'
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: eager raised builtins.RuntimeError: stop at bias; compiled returned normally'
