"""Sorting values that are not constants, and ``functools.cmp_to_key``.

The order is CPython's own: the real ``sorted`` runs over positions whose ``<`` asks the
capture (``tx.compare``: a user ``__lt__`` inlined, a ``cmp_to_key`` wrapper calling the user's
``cmp``), so the comparisons happen in the order and number the C sort makes them, and ties
keep the stable order exactly.

``functools.cmp_to_key(cmp)`` makes key objects whose comparisons call ``cmp(a, b)`` and
compare its result with 0 (the C ``functools.KeyWrapper``).
"""
from __future__ import annotations

import functools
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue


class _Position:
    """One key of the sort: its ``<`` is the capture's comparison of the key values."""

    __slots__ = ("tx", "key")

    def __init__(self, tx, key: Value):
        self.tx = tx
        self.key = key

    def __lt__(self, other: "_Position") -> bool:
        return self.tx.compare(self.key, "<", other.key).truth(self.tx)


def order(tx, keys: list[Value], reverse: bool) -> list[int]:
    """The positions of ``keys`` in the order ``sorted(keys, reverse=reverse)`` puts them."""
    positions = [_Position(tx, k) for k in keys]
    return sorted(range(len(keys)), key=positions.__getitem__, reverse=reverse)


class CmpToKeyValue(Value):
    """``functools.cmp_to_key(cmp)``: calling it wraps one object."""

    def __init__(self, cmp: Value):
        self.cmp = cmp

    def describe(self):
        return "functools.cmp_to_key(...) key function"

    def python_type(self):
        return type(functools.cmp_to_key(lambda a, b: 0))

    def call(self, tx, args, kwargs):
        if len(args) != 1 or kwargs:
            try:
                functools.cmp_to_key(lambda a, b: 0)(*([None] * len(args)), **{k: None for k in kwargs})
            except TypeError as err:
                raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
        return KeyWrapperValue(self.cmp, args[0])

    def reconstruct(self, cg):
        return cg.shared(self, f"{cg.const(functools.cmp_to_key)}({cg.reconstruct(self.cmp)})")


class KeyWrapperValue(Value):
    """A key object of ``cmp_to_key``: ``a < b`` is ``cmp(a.obj, b.obj) < 0``."""

    def __init__(self, cmp: Value, obj: Value):
        self.cmp = cmp
        self.obj = obj

    def describe(self):
        return "functools.KeyWrapper object"

    def python_type(self):
        return type(functools.cmp_to_key(lambda a, b: 0)(None))

    def compare_op(self, tx, op: str, other: Value) -> Any:
        if not isinstance(other, KeyWrapperValue):
            err = TypeError("other argument must be K instance")
            raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
        result = tx.call(self.cmp, [self.obj, other.obj], {})
        return tx.compare(result, op, ConstantValue(0))

    def getattr(self, tx, name):
        if name == "obj":
            return self.obj
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        return cg.shared(self, f"{cg.const(functools.cmp_to_key)}({cg.reconstruct(self.cmp)})"
                               f"({cg.reconstruct(self.obj)})")


def _cmp_to_key(tx, *args: Value, **kwargs: Value) -> Value:
    if len(args) + len(kwargs) != 1 or (kwargs and "mycmp" not in kwargs):
        raise Unsupported("functools.cmp_to_key() with these arguments", kind="unsupported-operation")
    return CmpToKeyValue(args[0] if args else kwargs["mycmp"])


def install() -> None:
    registry.register_builtin(functools.cmp_to_key, _cmp_to_key)
