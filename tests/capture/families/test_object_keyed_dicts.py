"""A dict from outside keyed by classes (families/object_keyed_dicts.py): ``in``, ``[]`` and
``.get`` are answered from the real dict and guarded, so a changed dict recaptures."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness

TABLE = {int: "int", float: "float"}


class Pair:
    TYPE_TO_DTYPE = {int: torch.int64, float: torch.float64}


def breaks(h) -> list:
    return [(b.kind, b.reason) for r in h.results for b in r.breaks]


def test_lookups_by_class():
    def f(x, n):
        p = Pair()
        return x + 1, type(n) in p.TYPE_TO_DTYPE, p.TYPE_TO_DTYPE[type(n)], TABLE.get(type(n)), \
            TABLE.get(list, "none"), list in TABLE
    h = Harness()
    cf = h.compile(f)
    for n in (3, 2.5, 4):
        out, ref = cf(torch.ones(2), n), f(torch.ones(2), n)
        assert out[1:] == ref[1:]
    assert breaks(h) == []


def test_changed_dict_recaptures():
    def f(x):
        return x + 1, TABLE[int], complex in TABLE
    h = Harness()
    cf = h.compile(f)
    assert cf(torch.ones(1))[1:] == ("int", False)
    TABLE[int] = "INT"
    TABLE[complex] = "c"
    try:
        assert cf(torch.ones(1))[1:] == ("INT", True)
    finally:
        TABLE[int] = "int"
        del TABLE[complex]
    assert cf(torch.ones(1))[1:] == ("int", False)
    assert breaks(h) == []
