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


class Logged(dict):
    def __init__(self):
        super().__init__()
        self.log = ["init"]

    def __setitem__(self, key, value):
        self.log.append(key)
        super().__setitem__(key, value * 2)


def subclass_fromkeys(x):
    a = Mine.fromkeys(["a", "b"], 1)
    b = Logged.fromkeys("xy", 3)
    errors = []
    for bad in ((), (1, 2), (1,)):
        try:
            Mine.fromkeys(*bad)
        except TypeError as e:
            errors.append(str(e))
    return x + 1, a, type(a), b, b.log, errors


def test_fromkeys_of_a_user_subclass_calls_the_class_then_stores_each_key():
    assert check(subclass_fromkeys, lambda: (torch.randn(3),)).breaks == []
