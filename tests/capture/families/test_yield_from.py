"""``yield from`` inside generators run during capture (interpreter ``GET_YIELD_FROM_ITER``,
``SEND``): items are delegated one by one, and ``x = yield from sub()`` is the sub-generator's
return value."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def _sub(x):
    yield x + 1
    yield x * 2
    return x - 3


def _outer(x, items):
    got = yield from _sub(x)
    yield got
    yield from items


def delegates_to_generator_and_list(x):
    return sum(_outer(x, [x.sin(), x.cos()]))


def test_yield_from_a_generator_and_a_list_in_one_graph():
    h = check(delegates_to_generator_and_list, lambda: (torch.randn(4),))
    assert h.breaks == []
    assert len(h.backend.graphs) == 1


class Keys:
    """A collections.abc-style view whose ``__iter__`` delegates with ``yield from``."""

    def __init__(self, keys):
        self.keys = keys

    def __iter__(self):
        yield from self.keys


KEYS = Keys([1, 2, 3, 3])


def set_of_delegating_iterable(x):
    return len(set(KEYS)) * x


def test_set_of_an_object_whose_iter_yields_from():
    h = check(set_of_delegating_iterable, lambda: (torch.randn(4),))
    assert h.breaks == []
