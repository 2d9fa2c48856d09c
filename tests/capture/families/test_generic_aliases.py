"""``C[T]`` on classes whose ``__class_getitem__`` is typing's, collections.abc's or a builtin's
(families/generic_aliases.py): the real alias, no break."""
from __future__ import annotations

from typing import Generic, TypeVar, cast

import torch
from torch.utils._ordered_set import OrderedSet

from tests.capture.checks import check

T = TypeVar("T")


class Box(Generic[T]):
    pass


def aliases(a, b):
    x = cast(OrderedSet[T], a)
    return x + b, Box[int], list[int], dict[str, T], OrderedSet[int]


def test_generic_aliases_are_made_for_real_in_one_graph():
    h = check(aliases, lambda: (torch.randn(2), torch.randn(2)))
    assert h.captures == 1 and h.breaks == []
