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


# methods that take no argument: any argument is Python's TypeError, whatever the dict holds
_NO_ARGUMENTS = frozenset({"keys", "values", "items", "clear", "copy", "__iter__", "__len__", "__reversed__"})


def dict_special_method(tx, d: Any, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``d.__iter__()``, ``d.__ior__(x)``, ``d.__or__(x)``, ``d.__len__()``...: the operation the
    special method is, on a dict capture models; the TypeError Python raises for a method called
    with arguments it does not take; else NotImplemented."""
    from autograph.capture.values.constants import ConstantValue
    from autograph.capture.values.containers import _check_arity
    if name in _NO_ARGUMENTS or (name == "update" and len(args) > 1):
        _check_arity(d.kind, name, args, kwargs)  # raises Python's TypeError for a wrong count
    if kwargs or d.kind is not dict:
        return NotImplemented
    if name == "__iter__" and not args:
        return d.get_iter(tx)
    if name == "__len__" and not args:
        return ConstantValue(len(d.items))
    if name == "__contains__" and len(args) == 1:
        return d.contains(tx, args[0])
    if name == "__getitem__" and len(args) == 1:
        return d.getitem(tx, args[0])
    if name in ("__or__", "__ior__") and len(args) == 1:
        out = dict_binary_op(tx, d, "|=" if name == "__ior__" else "|", args[0])
        return ConstantValue(NotImplemented) if out is NotImplemented else out
    return NotImplemented
