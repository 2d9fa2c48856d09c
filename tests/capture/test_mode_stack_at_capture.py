"""Capture never runs torch's private C functions that change process state (the mode stacks):
``TorchFunctionMode().__exit__`` without an ``__enter__`` pops whatever mode is on top in plain
Python (or raises on an empty stack); capture ran its ``_pop_torch_function_stack()`` for real
on the fake run, so a compiled call popped one mode more than plain Python."""
from __future__ import annotations

import pytest
import torch
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

import autograph


def exit_unentered_mode(x):
    TorchFunctionMode().__exit__(None, None, None)
    return x + 1


def _outcome(fn, depth: int):
    """(exception type or None, modes left) for a call under ``depth`` outer device modes."""
    for _ in range(depth):
        torch.device("cpu").__enter__()
    try:
        fn(torch.ones(2))
        error = None
    except RuntimeError as exc:
        error = str(exc)
    left = len(_get_current_function_mode_stack())
    while _get_current_function_mode_stack():
        torch._C._pop_torch_function_stack()
    return error, left


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_exit_of_an_unentered_mode_pops_as_plain_python(depth):
    autograph.reset()
    compiled = autograph.compile(exit_unentered_mode, backend="eager")
    expected = [_outcome(exit_unentered_mode, depth) for _ in range(2)]
    assert [_outcome(compiled, depth) for _ in range(2)] == expected
