"""Comparisons of dict views with views and sets (families/collections_values.py ``RealViewValue``,
families/sets.py ``SetValue.compare_op``): Python's full operator protocol, so a set compared with a
dict view lets the view answer, and a user ``__eq__`` on the right decides; ``sep.join`` of any
iterable of constants (families/builtins.py)."""
from __future__ import annotations

import collections

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


class AlwaysEqual:
    __hash__ = None

    def __eq__(self, other):
        return True


def _strict(fn):
    h = Harness()
    check(fn, lambda: (torch.randn(3),), harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]


def test_ordered_dict_views_compare_as_python_does():
    def f(x):
        O = collections.OrderedDict
        d1, d2, d3 = O({"a": 1, "b": 2}), O({"a": 1, "b": 2, "c": 3}), O({"a": 1, "b": 99})
        return (x + 1, d1.items() == d2.items(), d1.items() <= d2.items(), d1.items() < d2.items(),
                d1.items() == d3.items(), d2.items() >= d1.items(), d1.keys() == {"a", "b"},
                {"a", "b"} == d1.keys(), d1.keys() != d3.keys())

    _strict(f)


def test_a_set_compared_with_a_dict_view_or_a_user_eq():
    def f(x):
        return x + 1, {"a"} == {"a": 1}.keys(), {"a"} <= {"a": 1, "b": 2}.keys(), {1} == AlwaysEqual(), {1} != [1]

    _strict(f)


def test_join_of_containers_and_iterators():
    def f(x):
        d = collections.OrderedDict.fromkeys("abcde")
        before = "".join(d)
        d.move_to_end("b")
        collections.OrderedDict.move_to_end(d, "a", last=False)
        e = {"x": 1, "y": 2}
        return x + 1, before, "".join(d), "-".join(e), ",".join(k for k in e), "".join(iter(["p", "q"]))

    _strict(f)


def test_join_of_a_non_text_item_raises_type_error():
    def f(x):
        try:
            "".join([x])
        except TypeError as exc:
            return str(exc)
        return "no error"

    check(f, lambda: (torch.randn(3),))


class _CompareError(Exception):
    pass


class _RaisesOnEq:
    def __eq__(self, other):
        raise _CompareError

    def __hash__(self):
        return 1


def test_dict_views_compare_item_by_item():
    def f(x):
        d1, d2, d3 = {"a": x, "b": 2}, {"a": x, "b": 2, "c": 3}, {"a": x, "b": 99}
        return (x + 1, d1.items() == d2.items(), d1.items() <= d2.items(), d1.items() < d2.items(),
                d1.items() == d3.items(), d2.items() >= d1.items(), d1.keys() == d3.keys(), d1.keys() < d2.keys(),
                d2.items() > d1.items(), d1.items() != d3.items())

    _strict(f)


def test_a_value_whose_eq_raises_propagates_from_a_view_comparison():
    import operator

    def f(x):
        b1, b2 = {1: _RaisesOnEq()}, {1: _RaisesOnEq()}
        raised = 0
        for op in (operator.eq, operator.ne, operator.le, operator.ge):
            try:
                op(b1.items(), b2.items())
            except _CompareError:
                raised += 1
        return x + 1, raised

    _strict(f)
