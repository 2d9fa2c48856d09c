"""A set read from outside that holds functions (Python or builtin) besides constants
(families/sets.py ``wrap_outside_set``): ``f in s``, ``len(s)`` and iteration answered in the
graph, its contents guarded element by element (functions compare by identity), so removing or
adding a function recompiles."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def member(x, s):
    if torch.amp._exit_autocast in s:
        return x.sin(), len(s), "hello" in s, print in s
    return x.cos(), len(s)


def test_membership_in_one_graph_and_guarded():
    s = {torch._C._set_grad_enabled, "hello", torch.amp._exit_autocast}
    h = Harness()
    compiled = h.compile(member)
    x = torch.randn(2)
    assert compiled(x, s)[1:] == (3, True, False)
    compiled(x, s)
    assert h.captures == 1 and h.breaks == []
    s.remove(torch.amp._exit_autocast)
    out = compiled(x, s)
    torch.testing.assert_close(out[0], x.cos())
    assert out[1] == 2 and h.captures == 2


def iterate(x, s):
    return [f for f in s if f is not None], x + 1


def test_values_match_eager():
    for s in ({torch.sin, torch.amp._exit_autocast}, {print, 1, "a"}):
        check(member, lambda s=s: (torch.randn(2), s))
        check(iterate, lambda s=s: (torch.randn(2), s))
