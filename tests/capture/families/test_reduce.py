"""``functools.reduce`` in compiled code (families/reduce.py): one call per item, in order."""
from __future__ import annotations

import functools
import operator

import pytest
import torch

from tests.capture.checks import check


def two():
    return torch.randn(3), torch.randn(3)


def reduce_add(a, b):
    return functools.reduce(operator.add, [a, b, a * 2])


def reduce_with_initial(a, b):
    return functools.reduce(lambda acc, t: acc * t + 1, (a, b), b)


def reduce_builds_a_tuple(a, b):
    return functools.reduce(lambda x, y: (x, y), [a, b, 3])


def reduce_single_item(a, b):
    return functools.reduce(operator.mul, [a])


def reduce_consumes_an_iterator(a, b):
    it = iter([a, b, a])
    first = next(it)
    return functools.reduce(operator.sub, it, first), list(it)


def reduce_empty_without_initial(a, b):
    return functools.reduce(operator.add, [])


@pytest.mark.parametrize("fn", [reduce_add, reduce_with_initial, reduce_builds_a_tuple, reduce_single_item,
                                reduce_consumes_an_iterator])
def test_reduce_matches_eager_without_a_break(fn):
    h = check(fn, two)
    assert h.breaks == [], [str(b) for b in h.breaks]


def test_reduce_of_an_empty_sequence_raises_typeerror_natively():
    check(reduce_empty_without_initial, two)
