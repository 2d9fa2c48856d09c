"""Fuzz regression (found by scripts/fuzz.py --seed 7, program seed 7001601, 2026-11-21, minimised).

Observed difference:
    call 0: exception: eager raised builtins.ValueError: t8 too large: shape (5, 3); compiled raised builtins.RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.
    call 0: stdout: eager printed 'caught RuntimeError/n', compiled printed ''
"""
import pytest

from autograph.testing.fuzz import (Program, autograph_compiler, check_program, format_failure)

SOURCE = 'import math\n\nimport torch\nimport torch.nn.functional as F\n\ndef fn(x, y, n):\n    t7 = x.unsqueeze(0)\n    try:\n        t7 *= x\n    except (IndexError, RuntimeError) as e:\n        print("caught", type(e).__name__)\n    t8 = y.neg().exp()\n    if t8.sum() > 2.0:\n        raise ValueError(f"t8 too large: shape {tuple(t8.shape)}")\n    return (t28.sum(), t28)\n'

PROGRAM = Program.from_dict(dict({'params': [{'name': 'x', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'y', 'kind': 'tensor', 'shape': ('A', 'B'), 'length': 0}, {'name': 'n', 'kind': 'int', 'shape': (), 'length': 0}], 'dims': [['A', 5], ['B', 3], ['C', 3]], 'alt_a': 1, 'ints': [1, 4], 'inputs_seed': 7001601, 'generator_seed': 7001601}, source=SOURCE))
OBSERVED = "call 0: exception: eager raised builtins.ValueError: t8 too large: shape (5, 3); compiled raised builtins.RuntimeError: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.\ncall 0: stdout: eager printed 'caught RuntimeError\\n', compiled printed ''"
BACKEND = 'eager'
# checked first, in the same process: the difference needs the state they leave behind
PREVIOUS = []


@pytest.mark.fuzz
def test_compiled_matches_eager():
    for earlier in PREVIOUS:
        check_program(earlier, autograph_compiler(BACKEND))
    differences = check_program(PROGRAM, autograph_compiler(BACKEND))
    assert not differences, format_failure(PROGRAM, differences)

SIGNATURE = 'exception: eager raised builtins.ValueError: <var> too large: shape (N, N); compiled raised builtins.RuntimeError: unsupported operation: some elements of the input tensor'
