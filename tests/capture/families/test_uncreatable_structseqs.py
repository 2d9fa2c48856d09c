"""Structseqs Python cannot make (``sys.version_info``, ``sys.flags``, ``sys.float_info``: "cannot
create instances") read in compiled code (families/named_tuples.py ``uncreatable``): compared,
sliced, fields read by name, returned as the object itself. Capture used to rebuild them for
its own folding and crashed (an internal error turned into an eager fallback)."""
from __future__ import annotations

import sys

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def version_checks(x):
    v = sys.version_info
    old = (v[:2] == (3, 11) and v < (3, 11, 15)) or (v[:2] == (3, 10) and v < (3, 10, 20))
    return x + 1, old, v.major, v.minor >= 8, sys.flags.optimize, sys.float_info.epsilon > 0


def test_version_info_compared_and_read_by_field():
    h = check(version_checks, lambda: (torch.randn(2),))
    assert h.breaks == []


def returns_version_info(x):
    return x * 2, sys.version_info


def test_returned_object_is_the_real_one():
    h = Harness()
    out = h.compile(returns_version_info)(torch.randn(2))
    assert out[1] is sys.version_info
