"""Torch calls without tensor arguments that answer with a plain value read global state
(families/state_queries.py): their answer is guarded, so a caller that changes the state between
calls (a profiler around the call, deterministic mode switched) gets eager's branch."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


def profiled_branch(x):
    if torch.autograd._profiler_enabled():
        return x + 1
    return x - 1


def test_profiler_enabled_answer_is_guarded():
    """A C query (``torch.autograd._profiler_enabled``) answered at capture."""
    h = Harness()
    f = h.compile(profiled_branch)
    x = torch.zeros(2)
    assert torch.equal(f(x), profiled_branch(x))
    with torch.autograd.profiler.profile():
        assert torch.equal(f(x), profiled_branch(x))
    assert torch.equal(f(x), profiled_branch(x))


def precision_branch(x):
    if torch.get_float32_matmul_precision() == "highest":
        return x * 2
    return x * 3


def test_python_query_answer_is_guarded():
    """A Python function of torch (``torch.get_float32_matmul_precision``) folded at capture."""
    h = Harness()
    f = h.compile(precision_branch)
    x = torch.ones(2)
    before = torch.get_float32_matmul_precision()
    try:
        assert torch.equal(f(x), precision_branch(x))
        torch.set_float32_matmul_precision("high" if before == "highest" else "highest")
        assert torch.equal(f(x), precision_branch(x))
    finally:
        torch.set_float32_matmul_precision(before)
    assert torch.equal(f(x), precision_branch(x))
