"""ndarray's division dunders called by name divide by an array known only at run time: NumPy
gives 0 for a zero divisor where torch raises, so they run in NumPy (found by the attribute
sweep: ``a.__rfloordiv__(1)`` raised ZeroDivisionError compiled)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import autograph

CALLS = {
    "rfloordiv": lambda v: v.__rfloordiv__(1),
    "rmod": lambda v: v.__rmod__(5),
    "floordiv-self": lambda v: v.__floordiv__(v),
    "mod-self": lambda v: v.__mod__(v),
}


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_division_method_by_an_array_with_zeros_matches_numpy(call):
    def fn(x, v):
        return x + 1, call(v)

    compiled = autograph.compile(fn, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, expected = compiled(torch.ones(2), np.arange(4)), fn(torch.ones(2), np.arange(4))
    np.testing.assert_array_equal(got[1], expected[1])
