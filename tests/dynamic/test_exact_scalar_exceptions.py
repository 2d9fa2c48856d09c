"""An operation on a number that changes between calls raises for some calls only
(``1.0 / v`` with ``v == 0.0``, ``10 // n`` with ``n == 0``, an overflow): the entry
captured for one call must not decide, for the next, whether it raises."""
from __future__ import annotations

import torch

import autograph


def _same_as_python(f, values):
    c = autograph.compile(f, backend="eager")
    for v in values:
        got, want = c(torch.ones(1), v), f(torch.ones(1), v)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == want[1:], (v, got[1:], want[1:])


def test_float_division_caught_for_zero_only():
    def f(x, v):
        try:
            r = 1.0 / v
        except ZeroDivisionError as e:
            r = str(e)
        return x * 2, r

    _same_as_python(f, [2.0, 0.0, 4.0, -0.0, 8.0])


def test_float_overflow_caught_for_large_values_only():
    def f(x, v):
        try:
            r = v ** 400
        except OverflowError:
            r = "overflow"
        return x * 2, r

    _same_as_python(f, [1.5, 10.0, 0.5])


def test_int_division_by_a_dynamic_int_that_becomes_zero():
    def f(x, n):
        try:
            r = 10 // n, 10 % n
        except ZeroDivisionError as e:
            r = str(e)
        return x * 2, r

    _same_as_python(f, [2, 5, 0, 3])


def test_int_of_a_float_that_becomes_infinite_or_nan():
    def f(x, v):
        try:
            r = int(v)
        except (ValueError, OverflowError) as e:
            r = type(e).__name__
        return x * 2, r

    _same_as_python(f, [2.5, float("inf"), 3.5, float("nan"), 1.0])


def test_division_by_a_dynamic_size_that_becomes_zero():
    def f(x):
        try:
            r = 12 // (x.shape[0] - 2)
        except ZeroDivisionError:
            r = -1
        return x * r, r

    c = autograph.compile(f, backend="eager")
    for k in (3, 4, 2, 5):
        x = torch.ones(k)
        got, want = c(x), f(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1] == want[1]
