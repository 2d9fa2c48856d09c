"""``typing``'s special forms and aliases subscribed at run time (``cast(List[Tensor], xs)``,
``Optional[T]``, ``Union[...]``: torch's optimizers do it on every step) are made for real,
with no graph break (families/generic_aliases.py)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple, Union, cast

import torch

from tests.capture.checks import check


def annotated(a, b):
    xs = cast(List[torch.Tensor], [a, b])
    kinds = (Optional[int], Union[int, float], Dict[str, torch.Tensor], Tuple[int, ...], Callable[[int], int])
    return xs[0] + xs[1], kinds


def test_typing_subscriptions_are_made_for_real_in_one_graph():
    h = check(annotated, lambda: (torch.randn(3), torch.randn(3)))
    assert h.captures == 1 and h.breaks == []


def bad_subscription(a):
    return a + 1, Optional[int, str]


def test_a_subscription_python_refuses_raises_as_in_python():
    check(bad_subscription, lambda: (torch.randn(3),))
