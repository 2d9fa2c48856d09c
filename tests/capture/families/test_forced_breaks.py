"""``torch._dynamo.graph_break()`` asks for a graph break (families/compile_markers.py): capture
breaks there, in the function itself or at the call site of an inlined function that calls it,
so the graphs are the ones torch.compile makes; values and grad mode stay eager's."""
from __future__ import annotations

import torch
import torch._dynamo

from tests.capture.checks import check


def break_between_adds(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


def test_break_splits_the_function_in_two_graphs():
    h = check(break_between_adds, lambda: (torch.randn(3),))
    assert [b.kind for b in h.breaks] == ["forced-break"]
    assert len(h.backend.graphs) == 2


def sin_without_grad(z):
    with torch.no_grad():
        torch._dynamo.graph_break()
        return torch.sin(z)


def calls_a_breaking_function(x, y, z):
    a = torch.mm(x, y)
    s = sin_without_grad(z)
    return a, s, torch.is_grad_enabled()


def test_break_in_an_inlined_function_breaks_at_its_call():
    def args():
        return torch.randn(4, 4, requires_grad=True), torch.randn(4, 4, requires_grad=True), torch.randn(4)
    h = check(calls_a_breaking_function, args)
    assert h.breaks and all(b.kind == "forced-break" for b in h.breaks)
    # the caller's graph (mm) and the callee's own capture after its break (sin)
    assert len(h.backend.graphs) == 2


def nested_grad_modes_with_breaks(x):
    before = torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        torch._dynamo.graph_break()
        with torch.set_grad_enabled(True):
            x = torch.mul(x, 5)
            torch._dynamo.graph_break()
            x = torch.sqrt(x)
            inner = torch.is_grad_enabled()
        middle = torch.is_grad_enabled()
    return x, before, inner, middle, torch.is_grad_enabled()


def test_breaks_inside_nested_grad_modes_keep_each_mode():
    h = check(nested_grad_modes_with_breaks, lambda: (torch.rand(3, 4, requires_grad=True),))
    assert [b.kind for b in h.breaks] == ["forced-break"] * 2
