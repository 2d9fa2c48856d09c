"""Objects a compiled function makes are made anew on every call, as Python makes them:
sets, lists, dicts, ``object()``, exceptions (raised or returned), results of folded
operations — never one object made at capture time and shared by all calls."""
from __future__ import annotations

import pytest
import torch

from tests.capture.harness import Harness


def _twice(f, *args):
    c = Harness().compile(f)
    return c(*args), c(*args)


def test_set_made_in_the_function_is_new_per_call():
    def f(x):
        tags = set()
        return x + 1, tags

    x = torch.ones(2)
    (_, a), (_, b) = _twice(f, x)
    a.add("seen")
    assert a is not b and b == set()


def test_set_made_by_an_in_place_operator_is_new_per_call():
    def f(x):
        s = set()
        s |= {1, 2}  # folded; returns `s` itself
        return x + 1, s, s

    x = torch.ones(2)
    (_, a, a2), (_, b, _) = _twice(f, x)
    assert a is a2  # one object within a call
    a.add(3)
    assert b == {1, 2} and a is not b


def test_result_of_a_folded_method_is_new_per_call():
    def f(x):
        parts = "a,b".split(",")  # a list made by str.split at capture time
        return x + 1, parts

    x = torch.ones(2)
    (_, a), (_, b) = _twice(f, x)
    a.append("c")
    assert b == ["a", "b"] and a is not b


@pytest.mark.parametrize("make", [object, list, dict])
def test_plain_objects_are_new_per_call(make):
    def f(x):
        return x + 1, make()

    x = torch.ones(2)
    (_, a), (_, b) = _twice(f, x)
    assert a is not b and type(a) is type(b) is make


class PlainError(ValueError):
    """Constructed in C: capture models it and makes it anew per call."""


class CodedError(Exception):
    def __init__(self, msg, code=0):
        super().__init__(msg)
        self.code = code


@pytest.mark.parametrize("cls", [PlainError, ValueError])
def test_raised_exception_is_new_per_call(cls):
    def f(x):
        y = x + 1
        if y.shape[0] == 2:
            raise cls("bad")
        return y

    c = Harness().compile(f)
    x = torch.ones(2)
    caught = []
    for _ in range(3):
        with pytest.raises(cls) as info:
            c(x)
        caught.append(info.value)
        info.value.handled = True  # a handler marking the exception
    assert len({id(e) for e in caught}) == 3
    assert all(e.args == ("bad",) for e in caught)
    assert caught[0].__traceback__ is not caught[1].__traceback__


def test_exception_with_python_init_is_new_per_call_and_keeps_its_attributes():
    def f(x):
        y = x * 2
        if y.shape[0] == 2:
            raise CodedError("bad", code=42)
        return y

    c = Harness().compile(f)
    x = torch.ones(2)
    first = None
    for _ in range(3):
        with pytest.raises(CodedError) as info:
            c(x)
        assert info.value.code == 42 and info.value is not first
        first = info.value
        first.code = 7  # a handler mutating it must not leak into the next call


def test_traceback_of_a_raised_exception_does_not_grow():
    def f(x):
        y = x + 1  # noqa: F841 - a graph before the raise
        raise PlainError("bad")

    c = Harness().compile(f)
    x = torch.ones(2)
    depths = []
    for _ in range(4):
        try:
            c(x)
        except PlainError as e:
            tb, n = e.__traceback__, 0
            while tb is not None:
                tb, n = tb.tb_next, n + 1
            depths.append(n)
    assert len(set(depths)) == 1, depths


def test_exception_object_returned_is_new_per_call():
    def f(x):
        err = PlainError("bad")
        err.note = "made here"
        return x + 1, err

    x = torch.ones(2)
    (_, a), (_, b) = _twice(f, x)
    assert a is not b and b.note == "made here" and b.args == ("bad",)


def test_exception_caught_inside_the_function_is_the_raised_object():
    def f(x):
        err = PlainError("bad")
        try:
            raise err
        except PlainError as e:
            same = e is err
        return x + 1, same

    c = Harness().compile(f)
    x = torch.ones(2)
    assert c(x)[1] is True and f(x)[1] is True


def test_folded_result_keeps_the_aliasing_python_gives_it():
    def f(x):
        grid = [[0] * 2] * 2  # one inner list, twice
        grid[0][0] = 5
        row = [1]
        pair = [row] * 2
        row.append(2)
        return x + 1, grid, pair

    c = Harness().compile(f)
    got, want = c(torch.ones(2)), f(torch.ones(2))
    assert got[1:] == want[1:]
    assert got[2][0] is got[2][1]


def test_operator_setitem_changes_the_list():
    import operator

    def f(x):
        items = [1, 2]
        operator.setitem(items, 0, 7)
        operator.delitem(items, 1)
        return x + 1, items

    c = Harness().compile(f)
    assert c(torch.ones(2))[1] == f(torch.ones(2))[1] == [7]
