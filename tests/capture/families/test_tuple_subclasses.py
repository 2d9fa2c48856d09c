"""Instances of tuple subclasses made in the compiled function (families/user_objects.py): a
Python ``__new__`` calling ``super().__new__(cls, items)``, classes with no ``__new__`` of their
own at any depth, ``tuple.__new__(cls, ...)`` called directly; their items are fixed by tuple's
``__new__``, attributes set on them, tuple's comparisons and ``+``/``*`` give plain tuples, and
the object returned is rebuilt as an instance of its class."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class WithNew(tuple):
    def __new__(cls, arg, newarg=None):
        self = super().__new__(cls, arg)
        self.newarg = newarg
        return self


class GrandchildWithNew(WithNew):
    pass


class Plain(tuple):
    pass


class GrandchildPlain(Plain):
    pass


class WithInit(tuple):
    def __init__(self, items, scale=1):
        self.scale = scale


def made_in_the_call(x):
    t = WithNew([1, 2], newarg=5)
    g = GrandchildWithNew([1, 2, 3])
    p = GrandchildPlain.__new__(GrandchildPlain, [x, x + 1])
    q = Plain(range(3))
    k = WithInit([3], scale=4)
    facts = (type(t) is WithNew, tuple(t) == (1, 2), t.newarg, type(g) is GrandchildWithNew, g.newarg,
             tuple(g), type(p) is GrandchildPlain, len(p), 2 in q, list(q), k.scale, k[0], t.count(1),
             t.index(2), t[0:1])
    ops = (t == (1, 2), (1, 2) == t, t != g, t < g, t + (3,), (0,) + t, t + g, 2 * t, t * 2)
    return x * len(g), facts, ops, t, p


def _kinds(value):
    return [type(v) for v in value]


def test_tuple_subclasses_made_in_one_graph():
    h = check(made_in_the_call, lambda: (torch.randn(2),))
    assert h.breaks == []
    x = torch.randn(2)
    out = h.compile(made_in_the_call)(x)
    t, p = out[3], out[4]
    assert type(t) is WithNew and t == (1, 2) and t.newarg == 5
    assert type(p) is GrandchildPlain and torch.equal(p[1], x + 1)
    assert _kinds(out[2][4:]) == [tuple] * 5  # tuple's operators make plain tuples


def keyword_arguments(x):
    try:
        Plain([1], extra=2)
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def test_keywords_rejected_as_tuple_does():
    h = check(keyword_arguments, lambda: (torch.randn(2),))
    assert h.breaks == []
