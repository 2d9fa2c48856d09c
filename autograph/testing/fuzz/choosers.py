"""Choosers: where the generator's decisions come from (a seed, or hypothesis draws)."""
from __future__ import annotations

import random
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")


class RandomChooser:
    """Decisions from ``random.Random(seed)``: fast, reproducible by seed."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)

    def chance(self, probability: float) -> bool:
        return self._random.random() < probability


class DrawChooser:
    """Decisions drawn from hypothesis, so failures shrink toward option 0."""

    def __init__(self, draw: Callable[[Any], Any]):
        from hypothesis import strategies as st
        self._draw = draw
        self._st = st

    def integer(self, low: int, high: int) -> int:
        return self._draw(self._st.integers(low, high))

    def chance(self, probability: float) -> bool:
        # shrinking draws toward 0, i.e. toward "no": simpler programs
        return self._draw(self._st.integers(0, 999)) >= round((1 - probability) * 1000)


def _pick(chooser: Any, options: Sequence[T]) -> T:
    return options[chooser.integer(0, len(options) - 1)]

