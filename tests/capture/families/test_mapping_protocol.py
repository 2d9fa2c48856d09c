"""``dict(m)`` and ``f(**m)`` copy any mapping the way CPython's ``PyDict_Merge`` does: a dict's
items, else ``m.keys()`` and ``m[k]`` run as the mapping's own methods (families/containers.py
``mapping_items``); a dict answers an attribute it lacks with AttributeError."""
from __future__ import annotations

from collections.abc import MutableMapping

import torch

from tests.capture.checks import check


class TensorDict(MutableMapping):
    def __init__(self):
        self._dict = {}

    def __getitem__(self, key):
        return self._dict[key]

    def __setitem__(self, key, value):
        self._dict[key] = value

    def __delitem__(self, key):
        del self._dict[key]

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)


OUTSIDE = TensorDict()
OUTSIDE["a"] = torch.ones(4) * 2


def dict_of_outside_mapping(x):
    d = dict(OUTSIDE)
    return x * d["a"], list(d)


def scale(x, a=1, b=1):
    return x * a + b


def star_star_of_made_mapping(x):
    m = TensorDict()
    m["a"] = x + 1
    m["b"] = 3
    return scale(x, **m), dict(m, c=4)["c"]


def dict_of_pairs_and_bad_pairs(x):
    d = dict([("a", x), ("b", x + 1)])
    try:
        dict([("a", 1, 2)])
    except ValueError as exc:
        return d["a"] + d["b"], str(exc)


def test_dict_of_a_user_mapping():
    h = check(dict_of_outside_mapping, lambda: (torch.randn(4),))
    assert h.breaks == []


def test_star_star_of_a_user_mapping():
    h = check(star_star_of_made_mapping, lambda: (torch.randn(4),))
    assert h.breaks == []


def test_dict_of_pairs_checks_their_length():
    h = check(dict_of_pairs_and_bad_pairs, lambda: (torch.randn(4),))
    assert h.breaks == []


def has_attr_on_dict(x):
    d = {"a": x}
    if hasattr(d, "to"):
        return d.to("cpu")
    return x + 1, hasattr(d, "items")


def test_absent_dict_attribute_is_attribute_error():
    h = check(has_attr_on_dict, lambda: (torch.randn(4),))
    assert h.breaks == []
