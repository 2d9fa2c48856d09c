"""``x.register_hook(fn)`` on a leaf passed in (families/tensor_hooks.py): replayed after the graph,
in program order; ``torch.autograd.grad`` after it ends the graph first."""
from __future__ import annotations

import pytest
import torch

from tests.capture.harness import Harness

SEEN = []


def _scale_grad(g):
    SEEN.append(g.clone())
    return g * 10


def _registers(x):
    y = x * 2
    x.register_hook(_scale_grad)
    x.register_hook(lambda g: g + 1)  # hooks run in registration order
    return (y * 3).sum()


def _registers_then_indexes(x, i):
    x.register_hook(_scale_grad)
    return (x[i + 1] * 3).sum()  # out of range on the real values: raises in the graph


def _registers_then_grad(x):
    x.register_hook(_scale_grad)
    return torch.autograd.grad((x * 3).sum(), x)


def _run(fn, args, backward):
    SEEN.clear()
    try:
        out = fn(*args)
    except IndexError as exc:
        return type(exc), None, list(SEEN)
    if backward:
        out.backward()
    return out, args[0].grad, list(SEEN)


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b


@pytest.mark.parametrize("fn,extra,backward,kinds", [
    (_registers, [], True, set()),
    (_registers_then_indexes, [torch.tensor([0])], True, {"effects-before-run-time-error"}),
    (_registers_then_indexes, [torch.tensor([5])], True, {"effects-before-run-time-error"}),
    (_registers_then_grad, [], False, {"tensor-hook"}),
])
def test_hooks_on_leaves_passed_in_fire_as_in_eager(fn, extra, backward, kinds):
    h = Harness()
    compiled = h.compile(fn)
    for _ in range(2):
        want = _run(fn, [torch.ones(3, requires_grad=True), *extra], backward)
        got = _run(compiled, [torch.ones(3, requires_grad=True), *extra], backward)
        assert _same(want, got), (want, got)
    assert {b.kind for b in h.breaks} == kinds


def _on_a_non_leaf(x):
    y = x * 2
    y.register_hook(_scale_grad)
    return y.sum()


def test_a_hook_on_a_tensor_the_graph_computes_still_breaks_and_fires():
    h = Harness()
    want = _run(_on_a_non_leaf, [torch.ones(2, requires_grad=True)], True)
    got = _run(h.compile(_on_a_non_leaf), [torch.ones(2, requires_grad=True)], True)
    assert _same(want, got)
    # the registration (a statement) is made after the graph; ``y.sum()`` reads the tensor it
    # hooked, so the code after it is a break of its own (engine/deferred_breaks.py)
    assert {b.kind for b in h.breaks} == {"after-deferred-call"}


def _returns_handle(x):
    handle = x.register_hook(_scale_grad)
    return x * 2, handle


def test_a_returned_handle_is_the_one_python_made():
    h = Harness()
    x = torch.ones(2, requires_grad=True)
    out, handle = h.compile(_returns_handle)(x)
    assert type(handle) is torch.utils.hooks.RemovableHandle
    handle.remove()
    SEEN.clear()
    out.sum().backward()
    assert SEEN == [] and torch.equal(x.grad, torch.full((2,), 2.0))
