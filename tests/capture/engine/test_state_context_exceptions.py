"""An exception raised during capture that leaves a ``with torch.no_grad()`` (or another torch
state context) block: the block's exit is a graph node at that point and the handler goes on
in the same graph (families/contexts.py ``_ExitValue``); uncaught, the raise runs in Python
inside the real block, and grad mode is restored either way."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def caught_outside_no_grad(x):
    x = torch.cos(x)
    try:
        with torch.no_grad():
            x = torch.sin(x)
            raise NotImplementedError("Not implemented")
    except NotImplementedError:
        x = torch.sigmoid(x)
    return x, x.requires_grad, torch.is_grad_enabled()


def _helper_raises(t):
    raise KeyError(t.shape[0])


def nested_modes_callee_raises(x):
    with torch.enable_grad():
        y = x * 2
        try:
            with torch.set_grad_enabled(False):
                with torch.no_grad():
                    y = y + 1
                    _helper_raises(y)
        except KeyError as e:
            y = y * e.args[0]
        inside = torch.is_grad_enabled()
    return y, y.requires_grad, inside, torch.is_grad_enabled()


def uncaught(x):
    with torch.no_grad():
        y = torch.sin(x)
        raise ValueError("leaves the function")
    return y


def _args():
    return (torch.randn(4, requires_grad=True),)


def test_caught_exception_leaving_no_grad_is_one_graph():
    h = check(caught_outside_no_grad, _args)
    assert h.breaks == [] and len(h.backend.graphs) == 1


def test_nested_state_contexts_left_by_a_callee_exception():
    for grad in (True, False):
        with torch.set_grad_enabled(grad):
            h = check(nested_modes_callee_raises, _args)
            assert h.breaks == []
            assert torch.is_grad_enabled() is grad


def test_uncaught_exception_restores_grad_mode():
    h = check(uncaught, _args)
    assert torch.is_grad_enabled()
    assert h.breaks  # the raise runs in Python, inside the real block
