"""An OrderedDict made in the call changed by ``dict``'s own methods (``dict.update(od, ...)``,
``dict.pop``, ``dict.clear``...: families/collections_values.py). CPython's object is then
inconsistent (its order list misses keys); the real object capture runs shows exactly that, so
the call is captured while the object dies in the function, and the graph breaks at that call
when it outlives it (no rebuild can make such an object)."""
from __future__ import annotations

from collections import OrderedDict

import torch

import autograph

from tests.capture.checks import check


def arg():
    return (torch.randn(3),)


def base_methods(x):
    d = OrderedDict({"a": 1, "b": 2})
    dict.update(d, OrderedDict({"e": 6}))
    d.update(f=7)
    same = d == {"a": 1, "b": 2, "e": 6, "f": 7}
    n = len(d)
    popped = dict.pop(d, "b")
    dict.setdefault(d, "g", 5)
    c = OrderedDict(a=1)
    dict.clear(c)
    q = OrderedDict(a=1, b=2)
    item = dict.popitem(q)
    return x + n, same, popped, len(d), len(c), c == {}, item, len(q)


def test_base_dict_methods_on_an_ordered_dict_made_in_the_call():
    assert check(base_methods, arg).breaks == []


def returns_inconsistent(x):
    d = OrderedDict({"a": 1, "b": 2})
    y = x + 1
    dict.update(d, {"e": 6})
    return y, d


def test_an_inconsistent_ordered_dict_outliving_the_call_runs_in_python():
    compiled = autograph.compile(returns_inconsistent, backend="eager")
    for _ in range(2):
        x = torch.randn(3)
        (y, d), (ey, ed) = compiled(x), returns_inconsistent(x)
        torch.testing.assert_close(y, ey)
        assert type(d) is OrderedDict and len(d) == 3 and d == ed and list(d) == list(ed) == ["a", "b"]


def or_types(x):
    d1 = OrderedDict({"a": 1, "b": 2})
    d2 = OrderedDict({"b": 3, "c": 4})
    return x + 1, type(d1 | d2), type(dict(d1) | d2), type(d1 | dict(d2)), dict(d1) | d2, d1 | {"z": 0}


def test_or_between_dict_and_ordered_dict_follows_python():
    assert check(or_types, arg).breaks == []
