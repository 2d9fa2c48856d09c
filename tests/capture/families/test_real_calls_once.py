"""Capture never runs a real side effect that the compiled code runs again (issue 26).

A torch Python function called with constant arguments only is run for real at capture time
(and again by its answer's guard) only when it is a state query by name (``is_*``, ``get_*``,
``*_enabled``, ...). Anything else -- an LR scheduler's patched ``opt.step``, a torch helper
that bumps a counter -- is interpreted, or called once at run time.
"""
from __future__ import annotations

import torch

from tests.capture.harness import Harness

calls: list[int] = []


def bump():
    calls.append(1)
    return None


bump.__module__ = "torch.optim.fake"  # a torch Python function of no arguments, not a query


def calls_bump(x):
    bump()
    y = x + 1
    print("", end="")  # a graph break after the call: capture plans the break and re-interprets
    return y


def test_torch_function_without_arguments_runs_once_per_call():
    calls.clear()
    f = Harness().compile(calls_bump)
    x = torch.ones(2)
    for n in range(1, 4):
        assert torch.equal(f(x), x + 1)
        assert len(calls) == n


def optimizer_step(opt, x):
    opt.step()
    y = x * 2
    print("", end="")  # a graph break after the step
    return y


def test_scheduler_patched_step_runs_once_on_the_capturing_call():
    """``LRScheduler`` replaces ``opt.step`` by a wrapper of no arguments (``torch.optim.sgd.step``)."""
    def run(compiled: bool) -> list[torch.Tensor]:
        p = torch.nn.Parameter(torch.ones(3))
        opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
        torch.optim.lr_scheduler.StepLR(opt, step_size=1)
        f = Harness().compile(optimizer_step) if compiled else optimizer_step
        seen = []
        for _ in range(3):
            p.grad = torch.ones(3)
            f(opt, torch.ones(1))
            seen.append(p.detach().clone())
        return seen

    for got, want in zip(run(True), run(False)):
        assert torch.equal(got, want)


def test_query_names():
    from autograph.capture.families.torch_calls import is_state_query

    assert is_state_query(torch.get_float32_matmul_precision)
    assert is_state_query(torch.cuda.is_available)
    assert is_state_query(torch.are_deterministic_algorithms_enabled)
    assert not is_state_query(bump)
    assert not is_state_query(torch.optim.SGD.step)
