"""``dict.__new__(cls, ...)``: an empty dict of ``cls`` (``super().__new__(cls)`` in a dict
subclass's own ``__new__`` reaches it too); ``Sub.fromkeys(keys, value)`` of a user dict subclass.

``dict.__new__`` ignores its other arguments (``dict.__init__`` fills the dict). For ``dict``
itself the result is an empty dict value; for a user subclass capture models, an instance made
during capture with an empty table (families/user_objects.py).
"""
from __future__ import annotations

import collections
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported

# dict subclasses of the standard library, each with a model of its own
_LIBRARY_KINDS = (collections.OrderedDict, collections.defaultdict, collections.Counter)


def _dict_new(tx, *args: Value, **kwargs: Value) -> Value:
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.user_objects import UserObjectValue, _class_of, supported_class
    cls = _class_of(args[0]) if args else None
    if cls is dict:
        return DictValue({})
    if isinstance(cls, type) and issubclass(cls, dict) and cls.__module__ != "builtins" \
            and cls not in _LIBRARY_KINDS and supported_class(cls) is None:
        return UserObjectValue(cls)
    raise Unsupported("dict.__new__() with these arguments", kind="unsupported-call")


class SubclassFromKeysValue(Value):
    """``Sub.fromkeys`` of a user dict subclass, as CPython's ``dict_fromkeys`` runs it for a
    class other than dict: ``d = Sub()`` (the class called, its ``__init__`` run), then
    ``d[key] = value`` for each key in turn (the class's own ``__setitem__`` if it has one)."""

    def __init__(self, fn: Any):
        self.fn = fn

    def describe(self) -> str:
        return f"{self.fn.__self__.__qualname__}.fromkeys"

    def real_value(self) -> Any:
        return self.fn

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__", "__self__"):  # (``assertRaises(E, Sub.fromkeys)`` reads them)
            from autograph.capture.core.constants import ConstantValue
            attr = getattr(self.fn, name)
            return tx.wrap(attr, None, trusted=True) if name == "__self__" else ConstantValue(attr)
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        from autograph.capture.core.constants import ConstantValue
        from autograph.capture.families.iterators import iterator_of
        if kwargs or not 1 <= len(args) <= 2:  # argument parsing's TypeError, before the class is called
            try:
                dict.fromkeys(*([()] * len(args)), **dict.fromkeys(kwargs))
            except TypeError as err:
                raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception") from None
        d = tx.call(tx.wrap(self.fn.__self__, None, trusted=True), [], {})
        value = args[1] if len(args) == 2 else ConstantValue(None)
        it = iterator_of(tx, args[0])
        while (key := it.next(tx)) is not None:
            d.setitem(tx, key, value)
        return d

    def reconstruct(self, cg):
        return cg.const(self.fn)


def _user_fromkeys(tx, obj: Any, source) -> Value | None:
    """``Sub.fromkeys`` (dict's own, bound to a user subclass): its model."""
    from autograph.capture.core.base import mro_lookup
    owner = getattr(obj, "__self__", None)
    if not (isinstance(owner, type) and issubclass(owner, dict) and owner.__module__ != "builtins"
            and not issubclass(owner, _LIBRARY_KINDS) and getattr(obj, "__name__", "") == "fromkeys"
            and type(obj).__name__ == "builtin_function_or_method" and mro_lookup(owner, "fromkeys")[0] is dict):
        return None
    from autograph.capture.families.absence import guard_absent_in_classes
    guard_absent_in_classes(tx, owner, "fromkeys")  # no class before dict gains its own
    return SubclassFromKeysValue(obj)


def install() -> None:
    registry.register_builtin(dict.__new__, _dict_new)
    registry.add_callable_wrapper(_user_fromkeys)
