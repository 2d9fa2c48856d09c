"""``repr``/``str`` and ``copy.copy`` of collections containers made in the call
(families/collections_values.py): the real operations on the real containers."""
from __future__ import annotations

import copy
from collections import Counter, OrderedDict, defaultdict, deque

import torch

from tests.capture.checks import check


def arg():
    return (torch.randn(3),)


def texts(x):
    od = OrderedDict(a=1, b=2)
    od.move_to_end("a")
    return x + 1, repr(od), str(deque([1, "b"], 3)), repr(Counter("abca"))


def test_repr_of_containers_of_constants():
    assert check(texts, arg).breaks == []


def copies(x):
    d = defaultdict(list, {1: x})
    c = copy.copy(d)
    c[2].append(3)
    od = OrderedDict(a=x)
    o = copy.copy(od)
    o["b"] = 1
    q = copy.copy(deque([x, 2], 5))
    return c.default_factory is list, dict(c), len(d), type(o), list(o), len(od), q.maxlen, c[1] is d[1]


def test_shallow_copies_keep_type_factory_and_items():
    assert check(copies, arg).breaks == []
