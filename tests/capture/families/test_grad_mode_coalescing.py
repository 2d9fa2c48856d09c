"""A grad-mode switch to the mode already in force is no graph node (families/contexts.py
``_set_grad``), as Dynamo coalesces them: ``no_grad()`` under ``no_grad()`` leaves only the
tensor ops; a real switch stays, grad mode is guarded at entry so each mode gets its own graph."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def redundant_no_grad(a, b):
    x = a + 1
    with torch.no_grad():
        x = x + b
    return x + 2, torch.is_grad_enabled()


def enable_grad_block(a, b):
    x = a + 1
    with torch.enable_grad():
        x = x + b
    return x + 2, x.requires_grad


def set_grad_true_then_query(a, b):
    x = a + 1
    with torch.set_grad_enabled(True):
        if torch.is_grad_enabled():
            x = x + b
    return x + 2


def _switches(h: Harness) -> list:
    return [t for t in h.backend.targets() if t is torch._C._set_grad_enabled]


def _args():
    return torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)


def test_switch_to_the_mode_in_force_is_no_node():
    with torch.no_grad():
        h = check(redundant_no_grad, _args)
    assert len(h.backend.graphs) == 1 and _switches(h) == []
    with torch.enable_grad():
        for fn in (enable_grad_block, set_grad_true_then_query):
            h = check(fn, _args)
            assert len(h.backend.graphs) == 1 and _switches(h) == [], fn.__name__


def test_real_switches_stay_and_each_mode_has_its_graph():
    h = Harness()
    compiled = h.compile(enable_grad_block)
    a, b = _args()
    with torch.no_grad():
        y, inside = compiled(a, b)
        assert inside and y.requires_grad is False and not torch.is_grad_enabled()
    y, inside = compiled(a, b)  # grad on at entry: another graph, without switches
    assert inside and y.requires_grad
    assert len(h.backend.graphs) == 2
    assert [n.args for n in h.backend.graphs[0].graph.nodes
            if n.target is torch._C._set_grad_enabled] == [(True,), (False,)]
    assert [t for t in h.backend.targets(1) if t is torch._C._set_grad_enabled] == []
