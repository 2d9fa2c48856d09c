"""A named tuple or ``torch.Size`` given to a folded builtin keeps its class (``format(p)`` is
``'Pt(x=1, y=2)'``, not ``'(1, 2)'``; found by the attribute sweep)."""
from __future__ import annotations

import collections

import pytest
import torch

import autograph

Pt = collections.namedtuple("Pt", "x y")

TEXTS = {
    "format-argument": lambda p: format(p),
    "format-made": lambda p: format(Pt(3, 4)),
    "format-size": lambda p: format(torch.Size([2, 3])),
}


@pytest.mark.parametrize("text", list(TEXTS.values()), ids=list(TEXTS))
def test_format_of_a_tuple_subclass_uses_its_class(text):
    def fn(x, p):
        return x + 1, text(p)

    compiled = autograph.compile(fn, backend="eager")
    assert compiled(torch.ones(2), Pt(1, 2))[1] == fn(torch.ones(2), Pt(1, 2))[1]
