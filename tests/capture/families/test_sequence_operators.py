"""Sequence operators with mixed operands: ``4 * [x]`` (the reflected repeat), ``list += tuple``."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check


def one():
    return (torch.randn(3),)


def int_times_list(x):
    return sum(4 * [x]), 2 * (x, 1), [x] * 3


def list_extended_by_a_tuple(x):
    items = [x]
    alias = items
    items += (x + 1, 2)
    items += range(2)
    return items, alias is items, len(alias)


def tuple_plus_list_is_a_typeerror(x):
    t = (x,)
    t += [x]
    return t


@pytest.mark.parametrize("fn", [int_times_list, list_extended_by_a_tuple])
def test_mixed_sequence_operators_match_eager_in_one_graph(fn):
    h = check(fn, one)
    assert h.breaks == [], [str(b) for b in h.breaks]


def test_tuple_plus_list_raises_like_eager():
    check(tuple_plus_list_is_a_typeerror, one)
