"""``dict.__new__(cls)`` and ``super().__new__(cls)`` in a dict subclass (families/dict_new.py):
an empty dict of that class made during capture."""
from __future__ import annotations

from collections import OrderedDict

import torch

from tests.capture.checks import check


class Mine(dict):
    pass


def make(base):
    class Custom(base):
        def __new__(cls, *args, **kwargs):
            return super().__new__(cls, *args, **kwargs)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
    return Custom


CUSTOM = [make(dict), make(OrderedDict)]


def through_super_new(x):
    out = []
    for cls in CUSTOM:
        c = cls(a=1)
        c["key"] = x
        out.append(("key" in c, c["key"] + 1, len(c)))
    return out


def test_super_new_of_a_dict_subclass():
    assert check(through_super_new, lambda: (torch.randn(3),)).breaks == []


def dict_new(x, klass):
    d = dict.__new__(klass, {"ignored": 1})
    d["x"] = x * 2
    if isinstance(d, Mine):
        d.attr = 3
    return d


def test_dict_new_of_dict_and_of_a_subclass():
    for klass in (Mine, dict):
        assert check(dict_new, lambda klass=klass: (torch.randn(3), klass)).breaks == []
