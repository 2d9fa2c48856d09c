"""Builtins and operators on mixed values (families/builtins.py, families/tensors.py): ``sorted`` with
a key function and on tuples, ``==`` between objects whose classes keep ``object``'s equality
(identity), ``x.__class__`` of a tensor, and torch's own Python functions taking values that are
no graph arguments (``torch.jit.annotate(Any, x)``) interpreted like user code."""
from __future__ import annotations

from typing import Any

import torch

from tests.capture.checks import check


def sort_records(x):
    y = [("john", "A", 8), ("jane", "B", 5), ("dave", "B", 10), ("ann", "A", 5)]
    calls = []

    def by_grade(r):
        calls.append(r[0])  # key is called once per item, in order
        return r[2]
    return x + 1, sorted(y), sorted(y, key=by_grade), sorted(y, key=lambda r: r[1], reverse=True), calls


def test_sorted_with_key_and_tuples():
    h = check(sort_records, lambda: (torch.randn(2),))
    assert h.breaks == []


def sort_tensors_by_constant_key(a, b):
    pairs = [(3, a), (1, b), (2, a + b)]
    return [t for _, t in sorted(pairs, key=lambda p: p[0])]


def test_sorted_keeps_tensor_items():
    h = check(sort_tensors_by_constant_key, lambda: (torch.randn(2), torch.randn(2)))
    assert h.breaks == []


class Plain:
    pass


class WithEq:
    def __eq__(self, other):
        return True


def object_equality(x):
    p, q = Plain(), Plain()
    return x + 1, p == q, p != q, p == p, p != p, Plain() == None  # noqa: E711


def test_object_equality_is_identity():
    h = check(object_equality, lambda: (torch.randn(2),))
    assert h.breaks == []


def user_eq(x):
    return x + 1, WithEq() == Plain()


def test_user_eq_is_not_taken_for_identity():
    check(user_eq, lambda: (torch.randn(2),))  # runs WithEq.__eq__ (or breaks), never identity


def class_name(x):
    if f"{x.__class__.__name__} foo".startswith("Tensor"):
        return x + 1, x.__class__ is torch.Tensor
    return x - 1


def test_tensor_class_attribute():
    h = check(class_name, lambda: (torch.randn(2),))
    assert h.breaks == []


def jit_annotate(x):
    y = torch.jit.annotate(Any, x + 1)
    return y + 2


def test_torch_python_function_with_a_class_argument_is_interpreted():
    h = check(jit_annotate, lambda: (torch.randn(2),))
    assert h.breaks == []
