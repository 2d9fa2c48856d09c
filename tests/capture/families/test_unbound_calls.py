"""``dict.keys(d)``, ``dict.clear(d)``, ``list.append(l, x)``, ``set.add(s, x)`` on values
capture models (families/unbound_calls.py): the value's own method, with live views and the
replay of changes to containers passed in."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def test_methods_through_the_class_change_the_container_made_in_the_call():
    def f(x):
        d = {"a": 1, "b": 2}
        dict.clear(d)
        e = {"a": x, "b": 2}
        keys = dict.keys(e)  # a live view
        e["c"] = 3
        dict.update(e, {"z": 1})
        items = [1]
        list.append(items, x)
        s = {1}
        set.add(s, 2)
        return d, list(keys), len(keys), items, dict.pop(e, "a") + 1, dict.setdefault(e, "q", 4), e, s

    h = Harness()
    check(f, lambda: (torch.randn(3),), harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]


def test_a_dict_passed_in_is_changed_after_the_graph():
    def f(x, d):
        dict.update(d, {"z": x})
        dict.pop(d, "a")
        return x + 1

    h = Harness()
    check(f, lambda: (torch.randn(3), {"a": 1, "b": 2}), harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]


def test_a_method_of_another_class_still_raises_type_error():
    def f(x):
        d = {"a": 1}
        try:
            list.append(d, 1)
        except TypeError:
            return x + 1
        return x

    check(f, lambda: (torch.randn(3),))
