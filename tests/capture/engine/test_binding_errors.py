"""A call that does not bind raises Python's own TypeError inside the graph (capture/engine/binding_errors.py):
the message CPython gives, catchable by the function's own ``except``; nothing of the callee runs."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class C:
    calls = 0

    def m(self, elem, *, k=1):
        C.calls += 1
        return elem


def wrong_calls(a, b):
    c = C()
    out = []
    for call in (lambda: c.m(), lambda: c.m(1, 2), lambda: c.m(1, z=3), lambda: C.m(c, 1, elem=2)):
        try:
            call()
        except TypeError as exc:
            out.append(str(exc))
    return a + 1, out


def test_binding_errors_are_pythons_and_caught_in_one_graph():
    h = check(wrong_calls, lambda: (torch.randn(2), torch.randn(2)))
    assert h.captures == 1 and h.breaks == []
    assert C.calls == 0
