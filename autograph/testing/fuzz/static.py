"""Static types of the variables a generated program binds, so that most programs run."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ty:
    """Static type of a generated variable.

    kind: ``tensor`` (shape), ``int`` (``small``: safe as a loop bound or index),
    ``float``, ``tlist``/``ttuple`` (``length`` tensors of ``shape``; a list may be
    longer at run time), ``tdict`` (``keys`` -> tensors of ``shape``); Python values of
    the exactness constructs: ``str``, ``bool``, ``pyset``/``pylist``/``pydict``/``box``/``exc``
    (objects made in the function), ``view`` (a dict view; ``keys`` holds which), ``obj``,
    ``iter``/``gen`` (caller's iterators), ``pdict`` (a caller's dict of (A, B) tensors).
    """
    kind: str
    shape: tuple[str, ...] = ()
    small: bool = False
    length: int = 0
    keys: tuple[str, ...] = ()


def broadcast(left: tuple[str, ...], right: tuple[str, ...]) -> tuple[str, ...] | None:
    """Result shape of broadcasting two symbolic shapes, or None when not provably valid."""
    result = []
    for index in range(1, max(len(left), len(right)) + 1):
        a = left[-index] if index <= len(left) else "1"
        b = right[-index] if index <= len(right) else "1"
        if a == b or b == "1":
            result.append(a)
        elif a == "1":
            result.append(b)
        else:
            return None
    return tuple(reversed(result))
