"""A torch call without a tensor result is run on fake tensors at capture time; its answer is
folded into the program only when the fake answers as the real tensor would. ``None`` tells
nothing (``t.storage_type()`` is None on a fake, whose storage is on the meta device): the call
runs in Python."""
from __future__ import annotations

import warnings

import torch

import autograph


def test_storage_type_is_the_real_tensors_legacy_storage_class():
    def fn(t):
        kind = t.storage_type()
        return t + 1, kind, type(kind).__name__

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage is deprecated
        x = torch.randn(3)
        want = fn(x)
        got = autograph.compile(fn, backend="eager")(x)
    assert torch.equal(got[0], want[0])
    assert got[1:] == want[1:] == (torch.FloatStorage, "_LegacyStorageMeta")
