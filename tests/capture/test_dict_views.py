"""``keys()``/``values()``/``items()`` of dicts are live views: every use reads the dict as it is then."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def one(*shape):
    return lambda: (torch.randn(*shape),)


def values_view_sees_later_stores(x):
    d = {3: x}
    values = d.values()
    d[3] = x + 1
    d[4] = x + 2
    return len(values), list(values)


def keys_view_membership_after_store(x):
    d = {3: x}
    keys = d.keys()
    d[4] = x + 1
    return 3 in keys, 4 in keys, 5 in keys, {3: 2, 4: "aa"}.keys() == keys


def view_iterated_twice(x):
    d = {"a": x, "b": x + 1}
    ks = d.keys()
    out = x
    for k in ks:
        out = out + d[k]
    for _k in ks:
        out = out * 2
    return out


def items_view_after_pop(x):
    d = {"a": x, "b": x * 2}
    items = d.items()
    d.pop("a")
    return [v for _, v in items], len(items), bool(items)


def view_returned(x):
    d = {"a": x}
    return d.keys(), d.values(), d.items()


def test_values_view_sees_later_stores():
    h = check(values_view_sees_later_stores, one(3))
    assert h.breaks == []


def test_keys_view_membership_after_store():
    h = check(keys_view_membership_after_store, one(3))
    assert h.breaks == []


def test_view_iterated_twice_yields_every_key_both_times():
    h = check(view_iterated_twice, one(3))
    assert h.breaks == []


def test_items_view_after_pop():
    h = check(items_view_after_pop, one(3))
    assert h.breaks == []


def test_views_returned_are_views_of_the_returned_dict():
    from tests.capture.harness import Harness
    h = Harness()
    f = h.compile(view_returned)
    keys, values, items = f(torch.ones(2))
    assert type(keys) is type({}.keys()) and list(keys) == ["a"]
    assert type(values) is type({}.values()) and type(items) is type({}.items())
