"""``bool(obj)`` and ``len(obj)`` of user objects check what ``__bool__``/``__len__`` returned
exactly as CPython does (families/truth_protocol.py): a non-bool from ``__bool__``, a negative,
non-integer or oversized ``__len__`` raise Python's own error, for objects passed in and
objects made in the call."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check


def _cls(**methods):
    return type("Probe", (), methods)


RESULTS = {
    "bool-float": _cls(__bool__=lambda self: 1.2),
    "bool-int": _cls(__bool__=lambda self: 1),
    "bool-none": _cls(__bool__=lambda self: None),
    "bool-false": _cls(__bool__=lambda self: False),
    "len-negative": _cls(__len__=lambda self: -1),
    "len-float": _cls(__len__=lambda self: 1.5),
    "len-str": _cls(__len__=lambda self: "a"),
    "len-huge": _cls(__len__=lambda self: 2 ** 70),
    "len-true": _cls(__len__=lambda self: True),
    "len-zero": _cls(__len__=lambda self: 0),
}


def branch_on_not(x, obj):
    if not obj:
        return x + 1
    return x - 1


def length_of(x, obj):
    return x + len(obj)


def made_in_the_call(x, cls):
    obj = cls()
    return (x + 1) if obj else (x - 1)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_truth_of_an_object_passed_in(name):
    check(branch_on_not, lambda: (torch.randn(2), RESULTS[name]()), calls=2)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_truth_of_an_object_made_in_the_call(name):
    check(made_in_the_call, lambda: (torch.randn(2), RESULTS[name]), calls=2)


@pytest.mark.parametrize("name", sorted(n for n in RESULTS if n.startswith("len")))
def test_len_checks_the_result(name):
    check(length_of, lambda: (torch.randn(2), RESULTS[name]()), calls=2)
