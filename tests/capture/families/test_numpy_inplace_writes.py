"""NumPy in-place operators on arrays passed in change them as in Python (issue 25 class D):
whether an operation writes is never decided by the values of the dry run's stand-ins (``a %= 5``
leaves stand-ins 1..3 unchanged, yet writes)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import autograph


def _ints():
    return np.array([17, -9, 33, 1000])


CASES = {
    "mod-int": (lambda a, b: a.__imod__(5), lambda: (_ints(), None)),
    "and-bool": (lambda a, b: a.__iand__(b), lambda: (np.array([True, True, False]), np.array([False, True, True]))),
    "and-mask": (lambda a, b: a.__iand__(0xFF), lambda: (_ints(), None)),
    "mod-float": (lambda a, b: a.__imod__(360.0), lambda: (np.array([700.5, -20.0, 1.25]), None)),
    "mul-bool-mask": (lambda a, b: a.__imul__(b), lambda: (np.array([1.0, 2.0, 3.0]), np.array([True, False, True]))),
    "copyto": (lambda a, b: np.copyto(a, b), lambda: (_ints(), np.array([1, 2, 3, 1]))),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_inplace_operator_changes_the_array(case):
    op, make = case

    def fn(x, a, b):
        op(a, b)
        return x + 1

    compiled = autograph.compile(fn, backend="eager")
    for _ in range(2):
        got_a, got_b = make()
        exp_a, exp_b = make()
        compiled(torch.ones(2), got_a, got_b)
        fn(torch.ones(2), exp_a, exp_b)
        np.testing.assert_array_equal(got_a, exp_a)


def test_augmented_assignment_statements_and_a_view():
    def fn(x, a, m, v, f):
        a %= 5
        m &= v
        w = f[1:]
        w %= 3.0
        return x + 1

    def make():
        return (torch.ones(2), np.array([17, -9, 33]), np.array([True, True, False]),
                np.array([False, True, True]), np.array([10.0, 7.5, -4.0]))

    compiled = autograph.compile(fn, backend="eager")
    for _ in range(2):
        got, expected = make(), make()
        compiled(*got)
        fn(*expected)
        for g, e in zip(got[1:], expected[1:]):
            np.testing.assert_array_equal(g, e)
