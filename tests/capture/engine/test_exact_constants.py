"""Operations on Python values that capture evaluates itself give exactly Python's answer:
each runs the real operation on real constants (``in`` on strings is a substring test,
``sum`` of floats is Python's ``sum``, ``index`` honours ``start``/``stop``, ...)."""
from __future__ import annotations

import pytest
import torch

from tests.capture.harness import Harness


def _same(f, *args):
    c = Harness().compile(f)
    x = torch.ones(2)
    got, want = c(x, *args), f(x, *args)
    if isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want)
    else:
        assert type(got) is type(want) and got == want, (got, want)


@pytest.mark.parametrize("s", ["abc", "xab", "a", ""])
def test_substring_in_str(s):
    def f(x, s):
        if "ab" in s:
            return x + 1
        return x - 1

    _same(f, s)


def test_subsequence_in_bytes():
    def f(x, b):
        return x + 1 if b"\x01\x02" in b else x - 1

    _same(f, b"\x00\x01\x02")


def test_not_in_str_constant():
    def f(x, c):
        return x * 2 if c not in "aeiou" else x

    _same(f, "b")
    _same(f, "e")


def test_in_range_and_tuple():
    def f(x, n):
        return x + (n in range(0, 10, 3)) + (n in (1.0, 2))

    _same(f, 3)
    _same(f, 1)


def test_in_frozenset_with_equal_numbers():
    def f(x, n):
        return x + (n in frozenset({1, 2}))

    _same(f, True)  # True == 1 and hash(True) == hash(1): found


def test_str_slicing_and_indexing():
    def f(x, s):
        return x + len(s[1:-1:2]) + ord(s[-1])

    _same(f, "hello world")


def test_sum_of_floats_is_pythons_sum():
    def f(x, vals):
        return x * sum(vals)

    _same(f, [0.1] * 10 + [1e16, 1.0, -1e16])


def test_tuple_index_with_start_and_stop():
    def f(x, t):
        return x + t.index(2, 2) + t.index(2, -3) + t.index(2, 1, 3)

    _same(f, (2, 1, 2, 3, 2))


def test_list_index_with_start_on_values():
    def f(x):
        items = [x, 1, 2, 1]
        return items.index(1, 2)

    c = Harness().compile(f)
    assert c(torch.ones(2)) == f(torch.ones(2))


def test_sort_with_key_and_reverse_keeps_python_stability():
    def f(x, words):
        order = list(words)
        order.sort(key=len, reverse=True)
        return x + 1, order, sorted(words, key=lambda w: w[0])

    c = Harness().compile(f)
    x = torch.ones(2)
    words = ["bb", "a", "cc", "d", "eee", "ab"]
    got, want = c(x, words), f(x, words)
    assert got[1:] == want[1:]


def test_count_and_remove_use_identity_then_equality():
    def f(x):
        nan = float("nan")
        items = [nan, 1, nan]
        n = items.count(nan)  # identity: nan is nan, although nan != nan
        items.remove(nan)
        return x + n + len(items)

    _same(f)


def test_dict_popitem_and_clear():
    def f(x):
        d = {"a": 1, "b": 2}
        k, v = d.popitem()
        d.clear()
        return x + v, k, len(d)

    c = Harness().compile(f)
    got, want = c(torch.ones(2)), f(torch.ones(2))
    assert got[1:] == want[1:]


def test_fstring_and_percent_formatting():
    def f(x, n, s):
        return x + len(f"{n:>6.2f}|{s!r}") + len("%05d-%s" % (n, s))

    _same(f, 3, "ab")


FROZEN = frozenset({1})


def test_a_global_frozenset_is_guarded_on_its_items_types():
    """``frozenset({1}) == frozenset({True})``, yet capture folds the items as constants of their
    own type: the guard compares each item's type too (one entry per typing)."""
    global FROZEN

    def names(x):
        return x + 1, sorted(type(v).__name__ for v in FROZEN)

    c = Harness().compile(names)
    x = torch.ones(2)
    try:
        for s in (frozenset({1}), frozenset({True}), frozenset({1.0}), frozenset({(1, 2)}), frozenset({(True, 2)})):
            FROZEN = s
            assert c(x)[1] == names(x)[1], s
    finally:
        FROZEN = frozenset({1})


def test_a_global_frozenset_is_guarded_on_the_sign_of_zero():
    """``0.0 == -0.0``, yet the folded item's text differs."""
    global FROZEN

    def text(x):
        return x + 1, repr(sorted(FROZEN))

    c = Harness().compile(text)
    x = torch.ones(2)
    try:
        for s in (frozenset({0.0}), frozenset({-0.0}), frozenset({(0.0, 1)}), frozenset({(-0.0, 1)})):
            FROZEN = s
            assert c(x)[1] == text(x)[1], s
    finally:
        FROZEN = frozenset({1})


OUTSIDE_SET = {1}


def test_a_set_from_outside_is_guarded_on_its_items_types():
    """``{1} == {True} == {1.0}``: the guard on a set read from outside compares item types too."""
    global OUTSIDE_SET

    def names(x):
        return x + 1, [type(v).__name__ for v in OUTSIDE_SET], repr(OUTSIDE_SET)

    c = Harness().compile(names)
    x = torch.ones(2)
    try:
        for s in ({1}, {True}, {1.0}, {0.0}, {-0.0}):
            OUTSIDE_SET = s
            assert c(x)[1:] == names(x)[1:], s
    finally:
        OUTSIDE_SET = {1}


def test_a_float_argument_zero_is_guarded_on_its_sign():
    import math

    def signed(x, s, t):
        return x * math.copysign(1.0, s), repr(s), repr(t)

    c = Harness().compile(signed)
    x = torch.ones(2)
    for s, t in ((0.0, (0.0,)), (-0.0, (-0.0,)), (0.0, (complex(0.0, -0.0),)), (0.0, (complex(0.0, 0.0),))):
        got, want = c(x, s, t), signed(x, s, t)
        assert torch.equal(got[0], want[0]) and got[1:] == want[1:], (s, t)
