"""An object's ``__dict__`` read after the call stored an attribute on that object
(families/containers.py ``DictValue._check_fresh``): the store is in it, as in Python (the
table read before the store answered without it: a wrong ``KeyError`` before)."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class Plain:
    pass


def read_after_store(x, o):
    o.a = 5
    try:
        v = o.__dict__["a"]
    except KeyError:
        v = -1
    return x + v, len(o.__dict__), "a" in o.__dict__


def view_taken_before_store(x, o):
    keys = o.__dict__.keys()
    o.b = 1
    return x + len(keys), sorted(keys)


def iterate_after_store(x, o):
    o.a = 1
    names = [k for k in o.__dict__]
    it = iter(o.__dict__)
    o.b = 2
    try:
        next(it)
    except RuntimeError as e:  # the dict changed size during iteration, as in Python
        names.append(str(e))
    return x + 1, names


def test_reads_of_a_dict_after_a_store_on_its_object_see_the_store():
    for f in (read_after_store, view_taken_before_store):
        assert check(f, lambda: (torch.zeros(2), Plain())).breaks == []
    check(iterate_after_store, lambda: (torch.zeros(2), Plain()))  # (the RuntimeError: in Python)
