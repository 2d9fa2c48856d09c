"""Instances of user dict subclasses made in the call: ``|``/``|=`` and ``dict.__or__``/
``__ior__``/``__eq__``/``__ne__`` on their table, and ``d.update(s)``/``{**s}`` reading a subclass
as CPython's ``PyDict_Merge`` does (families/dict_operators.py, ``UserObjectValue.mapping_items``)."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


class Plain(dict):
    pass


class OwnKeys(dict):
    def keys(self):
        return ["b"]

    def __iter__(self):
        return iter(["b"])


class OwnReflected(dict):
    def __ror__(self, other):
        return "reflected"


class Pairs:
    def __iter__(self):
        return iter([("p", 1)])


def _strict(fn):
    h = Harness()
    check(fn, lambda: (torch.randn(3),), harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]


def test_or_and_ior_of_a_dict_subclass():
    def f(x):
        a, b = Plain(a=1), Plain(b=x)
        c = Plain(c=3)
        same = c.__ior__(b) is c
        c |= {"z": 1}
        return a | b, a.__or__(b), dict.__or__(a, b), {"x": 1} | a, same, c, type(c).__name__

    _strict(f)


def test_comparisons_through_dict():
    def f(x):
        a, b = Plain(a=1), Plain(a=1)
        return x + 1, dict.__eq__(a, b), dict.__ne__(a, {"a": 2}), a.__eq__(b), Plain.__ne__(a, b), dict.__eq__(a, 5)

    _strict(f)


def test_update_reads_a_subclass_as_a_mapping():
    def f(x):
        d = {"a": 1}
        d.update(Plain(b=x))
        d.update(OwnKeys(b=3, c=4))  # its own keys() and __iter__: only "b"
        d.update(Pairs())  # no keys(): an iterable of pairs
        return x + 1, d, {**Plain(q=2)}, dict(Plain(r=3))

    _strict(f)


def test_a_subclass_with_its_own_reflected_operator_is_asked_first():
    def f(x):
        return x + 1, {"y": 1} | OwnReflected(q=1)

    check(f, lambda: (torch.randn(3),))


def test_or_with_a_non_dict_raises_type_error():
    def f(x):
        out = []
        for other in (1, "s", [("k", 1)], None):
            try:
                Plain(a=1) | other
            except TypeError as exc:
                out.append(str(exc))
        return x + 1, out

    _strict(f)
