"""``weakref.ref(obj)`` of an object from outside (families/weakrefs.py): the real weak reference,
called for its object, usable as the key of a ``WeakKeyDictionary``'s table."""
from __future__ import annotations

import weakref

import torch

from tests.capture.harness import Harness

STATES = weakref.WeakKeyDictionary()
MODS = [torch.nn.Module() for _ in range(3)]
STATES[MODS[0]] = 2
STATES[MODS[1]] = 3


def membership(x):
    if MODS[0] in STATES:
        x = torch.sin(x)
    if MODS[2] in STATES:
        x = torch.cos(x)
    return x + STATES.get(MODS[1], 0)


def test_weak_key_dictionary_membership_and_get():
    h = Harness()
    f = h.compile(membership)
    x = torch.randn(4)
    torch.testing.assert_close(f(x), membership(x))
    STATES[MODS[2]] = 4  # the table changed: looked up anew
    try:
        torch.testing.assert_close(f(x), membership(x))
    finally:
        del STATES[MODS[2]]
    torch.testing.assert_close(f(x), membership(x))
    assert h.breaks == [] and h.captures == 2


def call_the_reference(x, obj):
    r = weakref.ref(obj)
    return x + 1, r() is obj, r


def test_a_weak_reference_to_an_argument_gives_it_back():
    h = Harness()
    f = h.compile(call_the_reference)
    for obj in (MODS[0], MODS[1]):
        out, same, r = f(torch.ones(2), obj)
        assert same and r() is obj and type(r) is weakref.ref
    assert h.breaks == []


class Holder:
    def __init__(self, target):
        self.target = target
        self.ref = weakref.ref(target)


def follow(holder, x):
    obj = holder.ref()
    if obj is None:
        return x - 1
    if obj is holder.target:
        return x * obj.scale
    return x + obj.scale


class Scaled:
    def __init__(self, scale):
        self.scale = scale


def test_a_weak_reference_from_outside_is_called_for_its_object_guarded():
    """``holder.ref()`` of a weak reference stored outside: its referent, read and guarded like any
    object from outside (it was an unsupported-call break); a new referent or a dead one is seen."""
    h = Harness()
    f = h.compile(follow)
    x = torch.randn(3)
    a = Scaled(2.0)
    holder = Holder(a)
    torch.testing.assert_close(f(holder, x), x * 2.0)
    assert h.breaks == []
    holder.target = Scaled(5.0)  # the reference still points to a: not the target any more
    torch.testing.assert_close(f(holder, x), x + 2.0)
    b = Scaled(3.0)
    holder.ref = weakref.ref(b)
    torch.testing.assert_close(f(holder, x), x + 3.0)
    del b  # the referent dies: the call gives None
    torch.testing.assert_close(f(holder, x), x - 1)
    assert h.breaks == []


def test_lstm_forward_is_one_graph_and_matches_plain():
    """``nn.LSTM`` checks its flat weights through weak references (``_weights_have_changed``):
    with them followed, its forward is one graph, outputs and gradients bit-identical."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(4, 8, num_layers=2, batch_first=True)

    def run(x):
        out, (h, c) = lstm(x)
        return out.sum(1) + h[-1] + c[-1]

    h = Harness()
    f = h.compile(run)
    x = torch.randn(2, 5, 4)
    got = f(x)
    got.sum().backward()
    grads = [p.grad.clone() for p in lstm.parameters()]
    lstm.zero_grad()
    want = run(x)
    want.sum().backward()
    assert torch.equal(got, want)
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, lstm.parameters()))
    assert h.breaks == [] and h.captures == 1
