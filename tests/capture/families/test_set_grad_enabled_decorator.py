"""``torch.set_grad_enabled(mode)`` applied to a function inside compiled code (families/
contexts.py ``GradModeContextValue.call``): the switch it made when called is put back, as
``set_grad_enabled.__call__`` does, and each call of the decorated function runs in that mode."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def _make(mode: bool, decorator: bool):
    def fn(x):
        with torch.set_grad_enabled(not mode):
            if decorator:
                @torch.set_grad_enabled(mode)
                def inner(t):
                    return t.sin(), torch.is_grad_enabled()
            else:
                def inner(t):
                    return t.sin(), torch.is_grad_enabled()
                inner = torch.set_grad_enabled(mode)(inner)
            outside = torch.is_grad_enabled()  # decorating does not change the mode
        with torch.set_grad_enabled(not mode):
            y, inside = inner(x)
            return y, inside, outside, torch.is_grad_enabled(), y.requires_grad
    return fn


def test_set_grad_enabled_decorating_a_function_in_one_graph():
    for mode in (True, False):
        for decorator in (True, False):
            h = check(_make(mode, decorator), lambda: (torch.zeros(3, requires_grad=True),))
            assert h.breaks == [], (mode, decorator)
            assert torch.is_grad_enabled()
