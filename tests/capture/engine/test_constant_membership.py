"""``in`` between constants runs Python's own ``in`` (substrings, ranges), not an item-by-item scan."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def substring(x):
    if "test" in __name__ and "foo" in "foobar" and "zz" not in "foobar":
        return x + 1
    return x - 1


def range_membership(x):
    r = range(0, 100, 7)
    return x * (14 in r) + (15 in r)


def bytes_membership(x):
    return x + (b"ab" in b"xaby")


def test_substring_in_string():
    h = check(substring, lambda: (torch.randn(3),))
    assert h.breaks == []


def test_range_membership_is_arithmetic():
    h = check(range_membership, lambda: (torch.randn(3),))
    assert h.breaks == []


def test_bytes_membership():
    h = check(bytes_membership, lambda: (torch.randn(3),))
    assert h.breaks == []
