"""``collections.namedtuple(...)`` called inside compiled code (families/named_tuples.py
``MadeNamedTupleClass``): instances are modelled in the graph, and every call's results have a
class made by that call (as in Python), with eager's module name, defaults and field names."""
from __future__ import annotations

import collections

import torch

from tests.capture.harness import Harness


def make_and_return(a, b):
    mytuple = collections.namedtuple("mytuple", ["x", "y", "xy"], defaults=(None, 1, None))
    tmp = mytuple(a, xy=b)
    return mytuple(tmp.x, tmp[1], tmp.xy + b), type(tmp) is mytuple, isinstance(tmp, mytuple)


def test_namedtuple_made_per_call():
    h = Harness()
    f = h.compile(make_and_return)
    a, b = torch.randn(3), torch.randn(3)
    r1, same1, inst1 = f(a, b)
    r2, _, _ = f(a, b)
    e1, same_e, inst_e = make_and_return(a, b)
    assert (same1, inst1) == (same_e, inst_e) == (True, True)
    assert type(r1) is not type(r2)  # a new class per call, as eager makes
    assert type(r1).__module__ == type(e1).__module__ == __name__
    assert type(r1)._fields == ("x", "y", "xy") and type(r1)._field_defaults == type(e1)._field_defaults
    assert r1.y == 1 and torch.equal(r1.xy, e1.xy) and torch.equal(r1.x, a)
    assert h.breaks == []
    assert len(h.backend.graphs) == 1


def returns_the_class(a):
    P = collections.namedtuple("P", "u v")
    return P(a, a + 1), P, type(P(1, 2))


def test_class_itself_escapes_fresh():
    h = Harness()
    f = h.compile(returns_the_class)
    p1, c1, t1 = f(torch.ones(2))
    p2, c2, _ = f(torch.ones(2))
    assert type(p1) is c1 is t1 and c1 is not c2
    assert h.breaks == []
