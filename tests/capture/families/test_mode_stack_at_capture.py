"""Capture never runs torch's private C functions that change process state (the mode stacks):
``TorchFunctionMode().__exit__`` without an ``__enter__`` pops whatever mode is on top in plain
Python (or raises on an empty stack); capture ran its ``_pop_torch_function_stack()`` for real
on the fake run, so a compiled call popped one mode more than plain Python. The same held for
``torch.device("cpu").__exit__(...)``: a method of a constant, folded -- run once, at capture."""
from __future__ import annotations

import pytest
import torch
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

import autograph


def exit_unentered_mode(x):
    TorchFunctionMode().__exit__(None, None, None)
    return x + 1


def exit_unentered_device(x):
    torch.device("cpu").__exit__(None, None, None)
    return x + 1


def exit_after_a_device_block(x):
    with torch.device("cpu"):
        y = x + 1
    torch.device("cpu").__exit__(None, None, None)
    return y


FUNCTIONS = [exit_unentered_mode, exit_unentered_device, exit_after_a_device_block]


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
@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_exit_of_an_unentered_mode_pops_as_plain_python(fn, depth):
    autograph.reset()
    compiled = autograph.compile(fn, backend="eager")
    expected = [_outcome(fn, depth) for _ in range(3)]
    assert [_outcome(compiled, depth) for _ in range(3)] == expected
