"""``it.__length_hint__()`` of iterators over the call's lists, tuples, dicts, dict views and sets
(families/containers.py ``SeqIteratorValue``): the items still to come, as CPython's iterators
count them: 0 once exhausted or after a dict/set changed size, a list's current length counts."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def length_hints(x):
    results = []
    lst = [1, 2, 3]
    for obj in ({1, 2, 3}, {1: "a", 2: "b"}, {1: "a"}.values(), lst, (4, 5), reversed(lst), {1: 2}.items()):
        it = iter(obj)
        results.append(it.__length_hint__())
        next(it)
        results.append(it.__length_hint__())
    it = iter(lst)
    lst.append(4)
    results.append(it.__length_hint__())
    lst.clear()
    results.append(it.__length_hint__())
    d = {1: 2, 3: 4}
    it = iter(d)
    next(it)
    d[5] = 6
    results.append(it.__length_hint__())
    it = iter([1])
    next(it)
    next(it, None)
    results.append(it.__length_hint__())
    results.append(iter(set()).__length_hint__())
    return x.sin(), results


def test_length_hints_in_one_graph():
    h = check(length_hints, lambda: (torch.randn(2),))
    assert h.breaks == []
