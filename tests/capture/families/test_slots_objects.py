"""Instances of classes with ``__slots__`` made during capture (families/user_objects.py): slot
reads and stores are modelled, an empty slot or a store outside the slots of a dict-less class
is Python's AttributeError, and the object is rebuilt with its slots filled at a break."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class Pair:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


class PairWithDict(Pair):
    pass


def brk(x):
    print(end="")
    return x


def slots_read_and_written(x):
    p = Pair(x + 1)
    p.b = p.a * 2
    return p.a + p.b


def test_slot_stores_and_reads_in_one_graph():
    h = check(slots_read_and_written, lambda: (torch.randn(3),))
    assert h.breaks == []


def empty_slot_and_missing_attribute(x):
    p = Pair(x)
    out = [hasattr(p, "b"), hasattr(p, "c")]
    try:
        p.c = 1
    except AttributeError as exc:
        out.append(str(exc))
    q = PairWithDict(x)
    q.c = 2  # a subclass without __slots__ has a __dict__
    return x + q.c, out


def test_empty_slot_and_dictless_store_are_attribute_errors():
    h = check(empty_slot_and_missing_attribute, lambda: (torch.randn(3),))
    assert h.breaks == []


def slots_object_live_at_break(x):
    p = Pair(x * 2)
    p.b = 3
    brk(x)
    return p.a + p.b, type(p) is Pair


def test_slots_object_rebuilt_at_a_break():
    h = check(slots_object_live_at_break, lambda: (torch.randn(3),))
    assert h.breaks and all("print" in b.reason for b in h.breaks)
    assert len(h.backend.graphs) >= 2
