"""``<``/``<=``/``>``/``>=`` between lists or tuples (families/builtins.py ``_lexicographic``): the
first pair that is not the same object and not ``==`` decides, else the lengths, as CPython
orders sequences; ``sorted(d.items())`` with distinct keys compares only the keys."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check


def sorted_items(x):
    outs = {"b": x * 2, "a": x + 1, "c": x.sin()}
    return torch.stack([v for _, v in sorted(outs.items())]), [k for k, _ in sorted(outs.items(), reverse=True)]


def tuples_decided_late(x):
    return x * 2 if (1, "a", 3) < (1, "a", 4) else x, (2, 1) >= (2, 1), [1, 2] > [1, 2, 0], (x, 1) <= (x, 2)


def tensors_decide(x, y):
    return (x, 1) < (y, 1)  # the first pair is not ==-equal: its own < (a tensor) is the answer


def list_against_tuple(x):
    return [1] < (1,)  # TypeError, as in Python


@pytest.mark.parametrize("fn", [sorted_items, tuples_decided_late, list_against_tuple])
def test_sequence_ordering_matches_python(fn):
    h = check(fn, lambda: (torch.randn(3),))
    if fn is not list_against_tuple:
        assert h.breaks == [], [b.reason for b in h.breaks]


def test_an_element_comparison_that_needs_a_tensor_value_runs_in_python():
    """``(x, 1) < (y, 1)``: Python asks ``bool(x == y)`` first; of a one-element tensor that is a
    value only the run knows (a break), and the answer is Python's."""
    check(tensors_decide, lambda: (torch.tensor([1.0]), torch.tensor([2.0])))
