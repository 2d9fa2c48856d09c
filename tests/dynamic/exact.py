"""The comparison the dynamic-number tests share: a compiled call's value against plain Python's."""
from __future__ import annotations

import math

import torch


def same(got, expected) -> None:
    """Equal values of the same types and reprs, tensors bit for bit, recursively (NaN equals NaN)."""
    assert type(got) is type(expected), (got, expected)
    if isinstance(expected, torch.Tensor):
        assert torch.equal(got, expected) and got.dtype == expected.dtype
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            same(a, b)
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected and repr(got) == repr(expected), (got, expected)
