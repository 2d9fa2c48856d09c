"""``@torch.no_grad()`` / ``@torch.enable_grad()`` / ``@torch.inference_mode()`` applied inside
compiled code (families/contexts.py ``ContextDecoratedValue``): each call of the decorated function
runs in a fresh clone of the context, grad mode outside is untouched, an exception leaves the
block, and the decorated function live at a break is rebuilt with the real decorator."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def brk(x):
    print(end="")
    return x


def decorated_nested_function(x):
    @torch.no_grad()
    def augment(t):
        return (t + 1) * 2, torch.is_grad_enabled()

    y, inside = augment(x)
    return y, inside, torch.is_grad_enabled(), (x * 3).requires_grad, y.requires_grad


def test_no_grad_decorator_in_one_graph():
    h = check(decorated_nested_function, lambda: (torch.randn(3, requires_grad=True),))
    assert h.breaks == []


def inference_mode_decorator(x):
    def body(t):
        return t.sin(), torch.is_inference_mode_enabled()
    f = torch.inference_mode()(body)
    y, inside = f(x)
    return y, inside, torch.is_inference_mode_enabled(), f.__name__, f.__wrapped__ is body


def test_inference_mode_decorator_and_wraps_attributes():
    h = check(inference_mode_decorator, lambda: (torch.randn(3),))
    assert h.breaks == []


def exception_leaves_the_block(x):
    @torch.no_grad()
    def fails(t):
        raise ValueError("boom")
    try:
        fails(x)
    except ValueError:
        pass
    return x * 2, torch.is_grad_enabled()


def test_exception_in_decorated_function_restores_grad_mode():
    check(exception_leaves_the_block, lambda: (torch.randn(3, requires_grad=True),))
    assert torch.is_grad_enabled()


def decorated_live_at_break(x):
    g = torch.no_grad()(lambda t: t * 2)
    brk(x)
    y = g(x)
    return y, y.requires_grad


def test_decorated_function_rebuilt_at_break():
    h = check(decorated_live_at_break, lambda: (torch.randn(3, requires_grad=True),))
    assert h.breaks and all("print" in b.reason for b in h.breaks)


def grad_classes_called_on_functions(x):
    def inner(t):
        return t.sin() * 2, torch.is_grad_enabled()

    with torch.enable_grad():
        quiet = torch.no_grad(inner)  # no_grad.__new__(cls, fn) returns no_grad()(fn)
        loud = torch.enable_grad(inner)
        still = torch.is_grad_enabled()
    with torch.no_grad():
        a = loud(x)
    return quiet(x), a, still, torch.is_grad_enabled()


def test_grad_classes_called_on_a_function_decorate_it():
    h = check(grad_classes_called_on_functions, lambda: (torch.randn(3, requires_grad=True),))
    assert h.breaks == []
