"""``weakref.ref(obj)`` of an object made in the call (families/weakrefs.py): followed while capture
proves the object alive, one reference per object, Python's TypeError for types without weak
references; live at a break or returned, made in Python at its call."""
from __future__ import annotations

import weakref

import pytest
import torch

from tests.capture.harness import Harness


class Node:
    def __init__(self, x):
        self.x = x


def _alive_in_a_local(x):
    o = Node(x)
    r = weakref.ref(o)
    r2 = weakref.ref(o)
    return r().x * 2, r is r2, type(r) is weakref.ref, isinstance(r, weakref.ref), r() is o


def _alive_in_a_list(x):
    nodes = [Node(x), Node(x + 1)]
    r = weakref.ref(nodes[1])
    return r().x * 3


def _alive_as_an_attribute(x):
    parent = Node(x)
    parent.child = Node(x * 2)
    back = weakref.ref(parent)
    parent.child.parent = back  # the child points back weakly, as a tree's nodes do
    return parent.child.parent().x + parent.child.x


def _graph_tensor(x):
    y = x * 2
    r = weakref.ref(y)
    return r() + 1


@pytest.mark.parametrize("fn", [_alive_in_a_local, _alive_in_a_list, _alive_as_an_attribute, _graph_tensor])
def test_a_reference_to_a_live_object_made_in_the_call_is_captured(fn):
    h = Harness()
    compiled = h.compile(fn)
    for x in (torch.ones(2), torch.arange(3.0), torch.ones(2)):
        want, got = fn(x), compiled(x)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        assert all(torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b for a, b in zip(want, got))
    assert not h.breaks


def _no_weak_references(x):
    return weakref.ref([x])


def test_a_type_without_weak_references_raises_pythons_type_error():
    h = Harness()
    with pytest.raises(TypeError) as want:
        _no_weak_references(torch.ones(1))
    with pytest.raises(TypeError) as got:
        h.compile(_no_weak_references)(torch.ones(1))
    assert str(got.value) == str(want.value)
    assert {b.kind for b in h.breaks} == {"python-exception"}


def _returned(x):
    o = Node(x + 1)
    return weakref.ref(o), o


def test_a_returned_reference_is_made_in_python_for_the_returned_object():
    h = Harness()
    r, o = h.compile(_returned)(torch.ones(2))
    assert type(r) is weakref.ref and r() is o and torch.equal(o.x, torch.full((2,), 2.0))
    assert {b.kind for b in h.breaks} == {"weakref-liveness"}


def _maybe_dead(x):
    r = weakref.ref(Node(x))
    return x + 1, r


def test_a_reference_whose_object_may_have_died_is_not_followed_at_capture():
    h = Harness()
    out, r = h.compile(_maybe_dead)(torch.ones(2))
    assert torch.equal(out, torch.full((2,), 2.0)) and type(r) is weakref.ref and r() is None
    assert {b.kind for b in h.breaks} == {"weakref-liveness"}
