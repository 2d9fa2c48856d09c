"""``torch.testing``'s helpers are Python on Python values (classes, pairs of inputs), never
graph operations: capture interprets them like user code instead of handing them to the graph."""
from __future__ import annotations

import torch
from torch.testing._comparison import NonePair, ObjectPair, not_close_error_metas

from tests.capture.checks import check


def compares_plain_values(x):
    same = not_close_error_metas(None, None, pair_types=(NonePair, ObjectPair))
    return x + 1, len(same)


def test_torch_testing_helper_taking_classes_is_interpreted():
    h = check(compares_plain_values, lambda: (torch.randn(2),))
    assert h.breaks == []
