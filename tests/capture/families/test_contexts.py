"""``with`` blocks and grad-mode contexts inside captured code (families/contexts.py)."""
from __future__ import annotations

import contextlib

import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


def test_no_grad_block_inside_captured_code_is_in_the_graph():
    w = torch.randn(3, requires_grad=True)

    def f(a):
        with torch.no_grad():
            frozen = a * w
        return frozen + a * w

    h = Harness()
    a = torch.randn(3)
    out = h.compile(f)(a)
    ref = f(a)
    assert_same(ref, out)
    assert not h.breaks and len(h.backend.graphs) == 1
    out.sum().backward()
    g_compiled = w.grad.clone()
    w.grad = None
    ref.sum().backward()
    assert torch.equal(g_compiled, w.grad)
    assert torch.is_grad_enabled()
    targets = h.backend.targets()
    assert targets.count(torch._C._set_grad_enabled) == 2


def test_no_grad_decorator_on_a_callee():
    @torch.no_grad()
    def helper(x):
        return x * 2

    def f(a):
        return helper(a) + a

    h = Harness()
    a = torch.randn(3, requires_grad=True)
    out = h.compile(f)(a)
    assert_same(f(a), out)
    assert not h.breaks
    assert out.requires_grad


def test_set_grad_enabled_false_then_true():
    def f(a):
        with torch.set_grad_enabled(False):
            b = a * 2
        with torch.enable_grad():
            c = a * 3
        return b.requires_grad, c.requires_grad, b + c

    h = Harness()
    a = torch.randn(2, requires_grad=True)
    assert_same(f(a), h.compile(f)(a))
    assert not h.breaks


class Scale:
    """A Python context manager: __enter__/__exit__ are inlined."""

    def __init__(self, k):
        self.k = k

    def __enter__(self):
        return self.k

    def __exit__(self, *exc):
        return False


def test_python_context_manager_is_inlined():
    def f(a):
        with Scale(3) as k:
            b = a * k
        return b

    h = Harness()
    a = torch.randn(3)
    assert_same(f(a), h.compile(f)(a))
    assert not h.breaks


def test_generator_based_context_manager_breaks_or_matches():
    @contextlib.contextmanager
    def cm():
        yield 2

    def f(a):
        with cm() as k:
            return a * k

    h = Harness()
    a = torch.randn(3)
    assert_same(f(a), h.compile(f)(a))


def test_break_inside_a_grad_mode_block_falls_back_to_eager_results():
    import autograph

    def f(a):
        with torch.no_grad():
            b = a * 2
            print("inside")  # a break inside the block: autograph must not lose the grad mode
            c = a * 3
        return b, c, b.requires_grad, c.requires_grad

    a = torch.randn(2, requires_grad=True)
    compiled = autograph.compile(f, backend="eager")
    assert_same(f(a), compiled(a))
    assert torch.is_grad_enabled()


def test_with_on_a_c_level_manager_is_a_break_not_run_at_capture_time():
    import threading
    lock = threading.Lock()

    def f(a):
        with lock:
            b = a + 1
        return b

    h = Harness()
    a = torch.randn(2)
    assert_same(f(a), h.compile(f)(a))
    # entered natively; the block resumes compiled with the real lock's exit, which breaks again
    assert len(h.breaks) >= 1 and "__enter__" in h.breaks[0].reason
    assert not lock.locked()
