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
