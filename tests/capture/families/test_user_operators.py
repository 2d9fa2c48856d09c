"""Binary operators a user class defines in Python (families/user_operators.py): CPython's order
(in-place first, a subclass's reflected method before the left operand's, NotImplemented passing
the turn, TypeError when all decline), all in one graph."""
from __future__ import annotations

import pytest
import torch
from torch.utils._ordered_set import OrderedSet

from tests.capture.checks import check


def two():
    return torch.randn(3), torch.randn(3)


class Num:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Num(self.x + (other.x if isinstance(other, Num) else other))

    def __radd__(self, other):
        return Num(other + self.x)

    def __mul__(self, other):
        return NotImplemented


class Child(Num):
    def __radd__(self, other):
        return Child(100 + self.x)


class Acc:
    def __init__(self):
        self.items = []

    def __iadd__(self, other):
        self.items.append(other)
        return self


def arithmetic(a, b):
    v = Num(2) + Num(3)
    w = 1 + Num(4)
    z = Num(1) + Child(2)  # the subclass's reflected method runs first
    v += 5  # no __iadd__: __add__, a new object
    acc = Acc()
    alias = acc
    acc += 1
    acc += 2
    try:
        Num(1) * 2
        msg = ""
    except TypeError as exc:
        msg = str(exc)
    return a * v.x, w.x, type(z).__name__, z.x, acc is alias, acc.items, msg


def ordered_sets(a, b):
    s = OrderedSet(["c", "b", "a"])
    t = OrderedSet(["a", "x"])
    u = s | t
    s |= ["q"]
    d = s - t
    i = s & t
    return a, list(u), list(s), list(d), list(i), type(u).__name__, s != t, f"{s}"


@pytest.mark.parametrize("fn", [arithmetic, ordered_sets])
def test_user_operators_match_eager_in_one_graph(fn):
    h = check(fn, two)
    assert h.captures == 1 and h.breaks == []


class Val:
    """A value of a small autograd-like engine, passed in from outside."""

    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        other = other if isinstance(other, Val) else Val(other)
        return Val(self.x + other.x)

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Val) else Val(other)
        return Val(self.x * other.x)


def operators_of_an_object_passed_in(a, v):
    w = v * 2 + 1
    z = 3 + v
    return w.x + a, z.x, type(w).__name__


def test_operators_of_objects_passed_in_run_their_python_methods_in_one_graph():
    h = check(operators_of_an_object_passed_in, lambda: (torch.randn(2), Val(torch.randn(2))))
    assert h.captures == 1 and h.breaks == []
