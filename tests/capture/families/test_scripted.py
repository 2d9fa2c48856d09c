"""Functions made by ``torch.jit.script`` / ``torch.jit.trace`` (families/scripted.py): one graph
operation calling the scripted function itself."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


@torch.jit.script
def affine(a, k: int):
    return a * k + 1, a.sum()


@torch.jit.script
def bump_(a):
    a.add_(1)
    return a


@torch.jit.script
def pick(a, i):
    return a[i]


def _traced_fn(a):
    return a.relu() * 2


traced = torch.jit.trace(_traced_fn, torch.randn(3))


def _uses_scripted(x, y):
    u, s = affine(x, 3)
    z = bump_(y)
    return u * s + traced(x), z is y


def test_scripted_functions_are_graph_operations_with_their_own_semantics():
    h = Harness()
    compiled = h.compile(_uses_scripted)
    for _ in range(2):
        x = torch.randn(3, requires_grad=True)
        y_want, y_got = torch.zeros(2), torch.zeros(2)
        want, got = _uses_scripted(x, y_want), compiled(x, y_got)
        torch.testing.assert_close(got[0], want[0])
        assert got[1] == want[1] and torch.equal(y_got, y_want)  # the in-place write reached the caller's tensor
        grad_want, = torch.autograd.grad(want[0].sum(), x)
        grad_got, = torch.autograd.grad(got[0].sum(), x)
        torch.testing.assert_close(grad_got, grad_want)
    assert not h.breaks and len(h.backend.graphs) == 1


def _index_after_append(x, i, log):
    log.append("before")
    return pick(x, i + 1)  # out of range on the real values: raises inside the scripted function


def test_an_error_inside_a_scripted_function_leaves_earlier_effects_as_eager():
    h = Harness()
    compiled = h.compile(_index_after_append)
    for i in (0, 7, 1):
        outcomes = []
        for fn in (_index_after_append, compiled):
            log = []
            try:
                outcomes.append((fn(torch.arange(4.0), torch.tensor([i]), log), log))
            except Exception as exc:  # noqa: BLE001 - TorchScript's own error type is compared
                outcomes.append((type(exc), log))
        (want, want_log), (got, got_log) = outcomes
        assert want_log == got_log
        assert torch.equal(want, got) if isinstance(want, torch.Tensor) else want is got
    # the pending append is replayed before the scripted call, which may raise: the graph ends there
    assert {b.kind for b in h.breaks} == {"effects-before-run-time-error"}


def _scalars_only(x):
    return affine(torch.ones(1), 2)[1] + x


def test_a_call_without_tensor_arguments_from_the_function_is_still_a_graph_operation():
    h = Harness()
    x = torch.ones(2)
    torch.testing.assert_close(h.compile(_scalars_only)(x), _scalars_only(x))
    assert not h.breaks


@torch.jit.script
def double(a):
    return a * 2


@torch.jit.script
def triple(a):
    return a * 3


CURRENT = {"fn": double}


def _through_a_global(x):
    return CURRENT["fn"](x) + 1


def test_another_scripted_function_in_the_same_place_is_called_on_later_calls():
    h = Harness()
    compiled = h.compile(_through_a_global)
    x = torch.ones(2)
    try:
        assert torch.equal(compiled(x), torch.full((2,), 3.0))
        CURRENT["fn"] = triple
        assert torch.equal(compiled(x), torch.full((2,), 4.0))
    finally:
        CURRENT["fn"] = double
    assert h.captures == 2 and not h.breaks
