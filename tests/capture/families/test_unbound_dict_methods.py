"""``dict.get(od, k)``, ``OrderedDict.items(od)``, ``dict.__eq__(a, b)``: base-type C methods
called through the class on a collections container made or mirrored in the call
(families/collections_values.py ``call_unbound``) run the real method on the real container."""
from __future__ import annotations

import collections

import pytest
import torch

from autograph.errors import CaptureError
from tests.capture.harness import Harness

from tests.capture.families.test_collections import compare, x_only


def test_dict_methods_through_the_class_on_an_ordered_dict():
    def f(a):
        d = collections.OrderedDict({"a": a, "b": a + 1})
        got = dict.get(d, "b") * 2
        keys = list(dict.keys(d))
        values = collections.OrderedDict.values(d)
        n = collections.OrderedDict.setdefault(d, "c", a - 1)
        od = collections.OrderedDict({"x": 1, "y": 2})
        popped = collections.OrderedDict.pop(od, "x")
        return got, keys, list(values), n, popped, od, d

    compare(f, x_only)


def test_dict_methods_on_an_ordered_dict_passed_in_are_written_back():
    def f(a, d):
        collections.OrderedDict.update(d, {"z": a})
        return collections.OrderedDict.pop(d, "x") + dict.get(d, "y")

    compare(f, lambda: (torch.randn(3), collections.OrderedDict(x=torch.randn(3), y=torch.randn(3))))


def test_dict_comparison_and_copy_through_the_class():
    def f(a):
        d1 = collections.OrderedDict({"a": 1, "b": 2})
        d2 = collections.OrderedDict({"b": 2, "a": 1})
        c = dict.copy(d1)
        return a + 1, dict.__eq__(d1, d2), collections.OrderedDict.__eq__(d1, d2), dict.__ne__(d1, d2), c

    compare(f, x_only)


def test_an_ordered_dict_left_inconsistent_is_captured_while_it_dies_in_the_call():
    def f(a):
        d = collections.OrderedDict({"x": 1})
        dict.update(d, {"z": 2})  # CPython: "z" is in the table but not in the order list
        return a + len(d), list(d), d == {"x": 1, "z": 2}

    h = compare(f, x_only)
    assert h.breaks == []


def test_an_inconsistent_ordered_dict_passed_in_is_not_mirrored():
    def f(a, d):
        return a + len(d)

    d = collections.OrderedDict({"x": 1})
    dict.update(d, {"z": 2})  # len 2, iterates over one key
    with pytest.raises(CaptureError, match="inconsistent"):
        Harness().compile(f)(torch.ones(2), d)


def test_a_method_of_another_type_still_raises_type_error():
    def f(a):
        d = collections.OrderedDict({"a": 1})
        try:
            list.append(d, 1)  # (a break, then Python's TypeError)
        except TypeError:
            return a + 1
        return a

    compare(f, x_only, graphs=None)
