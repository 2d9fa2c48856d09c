"""``d1 | d2`` and ``d |= other`` (families/dict_operators.py), and the new sets that ``|``, ``&``,
``-``, ``^`` of dict views make (families/fresh.py)."""
from __future__ import annotations

import operator

import pytest
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def _strict(fn, make_args):
    h = Harness()
    check(fn, make_args, harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]


def test_or_makes_a_new_dict_and_ior_updates_in_place():
    def f(x):
        a = {"a": x, "b": 2}
        b = {"b": x + 1, "c": 3}
        c = a | b
        alias = a
        a |= b
        a |= [("z", 9)]
        return c, a, b, alias is a, c["b"] is b["b"]

    _strict(f, lambda: (torch.randn(3),))


def test_ior_on_a_dict_passed_in_is_replayed():
    def f(x, d):
        d |= {"n": x}
        return x + 1

    _strict(f, lambda: (torch.randn(3), {"a": 1}))


def test_or_with_a_list_raises_type_error():
    def f(x):
        try:
            {"a": 1} | [("b", 2)]  # noqa: B018
        except TypeError as e:
            return x + 1, str(e)
        return x

    _strict(f, lambda: (torch.randn(3),))


@pytest.mark.parametrize("op", ["or_", "and_", "xor", "sub", "ior", "isub"])
def test_set_operators_of_dict_views_make_sets(op):
    op = getattr(operator, op)

    def f(x):
        a = {"one": 1, "two": 2}
        b = {"one": 1, "three": 3}
        return x + 1, op(a.items(), b.items()), op(b.items(), a.items()), op(a.keys(), {"one", "x"})

    _strict(f, lambda: (torch.randn(3),))
