"""A dict from outside keyed by classes or other objects (``{int: torch.int64, float: ...}``).

Dicts with constant keys are container values (``containers.DictValue``); one keyed by classes,
functions or other hashable objects stays the real dict, read-only: ``key in d``, ``d[key]`` and
``d.get(key)`` with a key known exactly are answered from the real dict now, and guarded where the
dict is read (its keys stay the same objects in the same order; the item read stays the same
object). torch.testing's comparison pairs look numbers' types up this way
(``type(x) in self._TYPE_TO_DTYPE``). Stores and anything else behave as for any object.
"""
from __future__ import annotations

import types
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.objects import ObjectValue
from autograph.capture.families.collections_values import _identity_hashed_real
from autograph.guards.sources import ItemSource, PinnedSource


class ObjectKeyedDictValue(ObjectValue):
    """A real dict whose keys are not constants, reached through ``source`` or a pinned read
    (``getter`` reads the live dict again, for the guards)."""

    def __init__(self, obj, source, getter, what: str):
        super().__init__(obj, source, what)
        self.getter = getter

    def _guard_keys(self, tx) -> None:
        """What a lookup answered from the real dict relies on: the same key objects, in order
        (guarded on first use only: a dict merely passed along is guarded by type)."""
        if self.source is not None:
            source = self.source
            tx.guards.keys(source, self.obj, by_value=[not _identity_hashed_real(k) for k in self.obj])
            return
        # the pinned read's TYPE_MATCH (``dict``, recorded where it was wrapped) and its keys: the
        # same objects in order
        tx.guards.keys(PinnedSource(self.getter, self.what), self.obj, by_value=[False] * len(self.obj))

    def _key(self, tx, item) -> Any:
        """The real key ``item`` stands for: a constant or a class, or (guarded to be that very
        object) a tensor or another object Python hashes and compares by identity; else
        NotImplemented (an object's __hash__/__eq__ could run Python code). A weak reference made
        in the call to such an object (families/weakrefs.py) hashes and compares as its object."""
        from autograph.capture.families.weakrefs import WeakrefValue
        if isinstance(item, WeakrefValue):
            referent = item.real()
            if referent is None or isinstance(referent, type) or not _identity_hashed_real(referent):
                return NotImplemented
            self._guard_keys(tx)
            return item.real
        source, key = _real_object(tx, item)
        if key is NotImplemented:
            return NotImplemented
        by_identity = not (isinstance(key, type) or item.is_constant())
        if by_identity and not _identity_hashed_real(key):
            return NotImplemented
        if by_identity and source is None and not isinstance(key, (types.FunctionType, types.BuiltinFunctionType)):
            return NotImplemented  # (a function read from a global is that function: its value is guarded)
        try:
            hash(key)
        except TypeError:
            return NotImplemented
        self._guard_keys(tx)
        if by_identity and source is not None:
            tx.guards.id_(source, key)  # the lookup's answer holds for this very object
        return key

    def contains(self, tx, item):
        key = self._key(tx, item)
        if key is NotImplemented:
            return super().contains(tx, item)
        return ConstantValue(key in self.obj)

    def getitem(self, tx, key_value):
        key = self._key(tx, key_value)
        if key is NotImplemented or key not in self.obj:
            return super().getitem(tx, key_value)
        return self._item(tx, key)

    def call_method(self, tx, name, args, kwargs):
        if name == "get" and not kwargs and 1 <= len(args) <= 2:
            key = self._key(tx, args[0])
            if key is not NotImplemented:
                if key in self.obj:
                    return self._item(tx, key)
                return args[1] if len(args) == 2 else ConstantValue(None)
        return super().call_method(tx, name, args, kwargs)

    def _item(self, tx, key):
        if self.source is not None:  # (a non-constant key is rendered as a constant)
            if _identity_hashed_real(key) and not isinstance(key, type):
                return tx.wrap(self.obj[key], IdentityKeyItemSource(self.source, key))
            return tx.wrap(self.obj[key], ItemSource(self.source, key))
        getter = self.getter
        return tx.wrap(self.obj[key], None, pin=lambda: getter()[key],
                       what=f"{self.what}[{getattr(key, '__qualname__', key)}]")


class IdentityKeyItemSource(ItemSource):
    """``base[key]`` for a key Python compares by identity (a tensor, a module, an object): shown
    by type and address, equal only for the very same key object (never compared by ``==``)."""

    def __eq__(self, other: object) -> bool:
        return type(other) is IdentityKeyItemSource and other.key is self.key and other.base_source == self.base_source

    def __hash__(self) -> int:
        return hash((IdentityKeyItemSource, self.base_source, id(self.key)))

    @property
    def expr(self) -> str:
        return f"{self.base_source.expr}[<{type(self.key).__name__} at {id(self.key):#x}>]"


def _real_object(tx, item) -> tuple[Any, Any]:
    """``(source, real object)`` of a lookup key: a tensor input's real tensor, or the object a
    value read from outside stands for; ``(None, NotImplemented)`` when unknown."""
    if item.is_tensor():
        node = item.node
        for source, real, input_node in tx.graph.inputs:
            if input_node is node and real is not None:
                return source, real
        return None, NotImplemented
    try:
        return getattr(item, "source", None), item.real_value()
    except Unsupported:
        return None, NotImplemented


def _wrap(tx, obj: dict, source):
    g = tx.guards
    pin = g.pin
    g.type_(source, obj)  # (a pinned read: consumes the pin)
    if source is not None:
        return ObjectKeyedDictValue(obj, source, None, source.expr)
    if pin is None:  # a trusted read: nothing to guard it by
        return ObjectValue(obj, source)
    getter, what = pin
    return ObjectKeyedDictValue(obj, None, getter, what)


def install() -> None:
    registry.register_type_wrapper(dict, _wrap)
