"""``d1 | d2`` and ``d |= other`` on dicts capture models (``DictValue``), as CPython's
``dict.__or__``/``dict.__ior__`` do them.

``dict.__or__`` answers only when both operands are dicts: a copy of the left one updated with
the right one (other operands get NotImplemented, so Python's reflected operator decides).
``dict.__ior__`` is ``dict.update`` with one argument (any mapping or iterable of pairs) that
returns the dict itself, so it goes through the dict's own ``update``, with the replay of a
change to a dict from outside that ``update`` records."""
from __future__ import annotations

from typing import Any

from autograph.capture.values.base import Value


def dict_binary_op(tx, d: Any, op: str, other: Value) -> Value:
    """``d <op> other`` for ``|`` and ``|=`` on a plain dict ``d``, else NotImplemented."""
    from autograph.capture.values.containers import DictValue
    if d.kind is not dict or op not in ("|", "|="):
        return NotImplemented
    if op == "|=":
        d.call_method(tx, "update", [other], {})
        return d
    if type(other) is not DictValue or other.kind is not dict:
        return NotImplemented  # (a dict subclass or mapping: its own reflected operator decides)
    new = DictValue(d.items)
    new.items.update(other.items)
    return new
