"""``weakref.ref(obj)`` of an object from outside: the real weak reference, made at capture.

Making a weak reference without a callback runs no user code and changes nothing Python can
observe (CPython even hands back the one it made before for the same object). Capture makes the
real one for the real object the value stands for (read through a source, guarded to be that
object), so hashing it, comparing it and using it as a dict key (a ``WeakKeyDictionary``'s
table) are Python's own; calling it gives the object back (alive: the call holds it). At a graph break or return the transformed code makes it again from the object.
Objects made during the call, and weak references with a callback, are not modelled (a break).
"""
from __future__ import annotations

import weakref
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported


class WeakrefValue(Value):
    """``weakref.ref(obj)`` of a real object: ``referent`` is the value of the object."""

    def __init__(self, referent: Value, real: weakref.ReferenceType):
        self.referent = referent
        self.real = real

    def describe(self) -> str:
        return f"weakref to {self.referent.describe()}"

    def python_type(self):
        return type(self.real)

    def real_value(self):
        return self.real

    def call(self, tx, args, kwargs):
        if args or kwargs:
            exc = TypeError(f"weakref() takes no arguments ({len(args) + len(kwargs)} given)")
            raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
        return self.referent

    def reconstruct(self, cg):
        return f"{cg.const(weakref.ref)}({cg.reconstruct(self.referent)})"


def _real_referent(value: Value) -> Any:
    """The real object ``value`` stands for when it was read from outside through a source (None
    otherwise: a tensor of the graph, an object made in the call, whose real object capture
    holds may be a stand-in made at capture)."""
    if value.is_tensor() or value.source is None:
        return None
    try:
        return value.real_value()
    except Unsupported:
        return None


def _weakref_call(tx, cls, args, kwargs):
    if cls is not weakref.ref or kwargs or len(args) != 1:
        return NotImplemented
    referent = args[0]
    real = _real_referent(referent)
    if real is None:
        return NotImplemented
    try:
        ref = weakref.ref(real)
    except TypeError as exc:
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception") from None
    tx.guards.id_(referent.source, real)  # the weak reference is to this object
    return WeakrefValue(referent, ref)


def install() -> None:
    registry.add_class_call_hook(_weakref_call)
