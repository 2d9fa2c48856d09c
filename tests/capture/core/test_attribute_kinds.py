"""Attributes of constants and containers follow CPython's lookup (issue 25, class A): a class
found as an attribute (``s.__class__``) is data, not a method; a rebuilt method of a constant is
valid code (``(3).__class__``, never ``3.__class__``)."""
from __future__ import annotations

import collections
import functools

import pytest
import torch

import autograph

Pair = collections.namedtuple("Pair", "a b")


def _same_as_eager(fn, *args):
    compiled = autograph.compile(fn, backend="eager")
    got, expected = compiled(*args), fn(*args)
    assert not compiled.stats.errors, compiled.stats.errors
    return got, expected


@pytest.mark.parametrize("value", ["abc", [1], 3, 1.5, True, None, torch.float32, (1, 2), Pair(1, 2), {1: 2},
                                   b"x", 2j, frozenset({1}), range(3), torch.device("cpu")],
                         ids=lambda v: type(v).__name__)
def test_class_of_a_value_is_its_type(value):
    def fn(x, v):
        return x * 2, v.__class__.__name__, v.__class__.__qualname__, v.__class__, f"{v.__class__}"

    got, expected = _same_as_eager(fn, torch.ones(2), value)
    assert got[1:] == expected[1:]


def test_branch_on_a_class_name_takes_pythons_path():
    def fn(x, s):
        if s.__class__.__name__ == "str":
            return x + 1
        return x - 1

    got, expected = _same_as_eager(fn, torch.ones(2), "abc")
    assert torch.equal(got, expected)


def test_class_of_an_int_is_returned_without_a_syntax_error():
    def fn(x, n):
        return x * 2, n.__class__, (4).__add__

    got, expected = _same_as_eager(fn, torch.ones(2), 3)
    assert got[1] is int and got[2](1) == 5


def test_singledispatch_on_an_int_argument_compiles():
    @functools.singledispatch
    def kind(v):
        return "object"

    @kind.register
    def _(v: int):
        return "int"

    def fn(x, n):
        return x + n, kind(n), kind("s")

    got, expected = _same_as_eager(fn, torch.ones(2), 3)
    assert got[1:] == expected[1:] == ("int", "object")


def test_class_data_that_is_not_a_method():
    def fn(x, l, t):
        return x + 1, l.__hash__ is None, t.__hash__ is None, l.__doc__ == list.__doc__

    got, expected = _same_as_eager(fn, torch.ones(2), [1], (1,))
    assert got[1:] == expected[1:] == (True, False, True)


def test_a_size_method_read_is_a_bound_builtin_method():
    def fn(x, s):
        m = s.numel
        return x + 1, type(m).__name__, m(), x.shape.numel

    got, expected = _same_as_eager(fn, torch.ones(2, 3), torch.Size([2, 3]))
    assert got[1:3] == expected[1:3] == ("builtin_function_or_method", 6)
    assert got[3]() == 6 and type(got[3]) is type(expected[3])
