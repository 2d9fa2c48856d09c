"""``str(o)``/``repr(o)`` of an object whose class defines ``__str__``/``__repr__`` in Python: the
method is inlined (``str`` falls back on ``__repr__``), so the function stays one graph; a
``__str__`` returning a non-str still raises Python's TypeError."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.runtime import stats


class Named:
    def __init__(self, v):
        self.v = v

    def __str__(self):
        return f"Named({self.v})"


class OnlyRepr:
    def __repr__(self):
        return "OnlyRepr!"


class BadStr:
    def __str__(self):
        return 3


def texts(x, outside):
    return x + 1, str(Named("in")), str(outside), str(OnlyRepr()), repr(OnlyRepr())


def test_python_str_and_repr_are_inlined():
    autograph.reset()
    f = autograph.compile(texts, backend="eager", fullgraph=True)
    x = torch.randn(2)
    for v in ("a", "b"):  # the outside object's attribute is guarded
        got, ref = f(x, Named(v)), texts(x, Named(v))
        assert torch.equal(got[0], ref[0]) and got[1:] == ref[1:]
    assert [s.errors for s in stats.all_stats() if s.errors] == []


def bad_text(x):
    return x + 1, str(BadStr())


def test_str_returning_a_non_str_raises():
    autograph.reset()
    f = autograph.compile(bad_text, backend="eager")
    with pytest.raises(TypeError, match="non-string"):
        f(torch.randn(2))
