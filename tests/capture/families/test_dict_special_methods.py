"""``d.__iter__()``, ``d.__ior__(x)``, ``d.__or__(x)`` called by name, the TypeError of a dict
method given arguments it does not take (families/dict_operators.py), and the ``__name__`` of
methods of collections containers (what ``assertRaises(E, d.get)`` reads)."""
from __future__ import annotations

import collections
import unittest

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness

_case = unittest.TestCase()


def _strict(fn):
    h = Harness()
    check(fn, lambda: (torch.randn(3),), harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]


def test_special_methods_called_by_name():
    def f(x):
        d = {"a": 1, "b": x}
        it = d.__iter__()
        first = next(it)
        e = d.copy()
        same = e.__ior__({"c": 3}) is e
        return first, e, same, d.__or__([1]), d.__len__(), d.__contains__("a"), d.__getitem__("b") + 1

    _strict(f)


def test_wrong_argument_counts_raise_type_error():
    def f(x):
        d = {"a": 1, "b": x}
        _case.assertRaises(TypeError, d.items, 1)
        _case.assertRaises(TypeError, d.update, {}, {})
        _case.assertRaises(TypeError, d.popitem, 1)
        try:
            d.keys(1)
        except TypeError as exc:
            return x + 1, str(exc)
        return x

    _strict(f)


def test_names_of_collections_methods():
    def f(x):
        od = collections.OrderedDict(a=1)
        _case.assertRaises(TypeError, od.get)
        _case.assertRaises(TypeError, collections.OrderedDict.fromkeys)
        return x + 1, od.get.__name__, collections.OrderedDict.fromkeys.__qualname__

    _strict(f)
