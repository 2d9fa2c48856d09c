"""``C[T]`` on a class: a generic alias (``list[int]``, ``OrderedSet[T]`` of a ``typing.Generic``
subclass), made for real when the class's ``__class_getitem__`` is typing's, a builtin type's or
``collections.abc``'s ``classmethod(GenericAlias)`` (C code or typing's cached, side-effect-free construction) and every type argument is a real
object capture holds (a class, a TypeVar, a constant). Anything else is Python's indexing error
path or a user ``__class_getitem__``: a break.

``typing``'s own special forms and aliases subscripted at run time (``Optional[Tensor]``,
``List[Tensor]`` in ``cast(List[Tensor], xs)``, ``Union[int, float]``: torch's optimizers do this on
every step) are made for real the same way: typing's ``__getitem__`` is pure and cached."""
from __future__ import annotations

import types
import typing
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value, mro_lookup

_TYPING_CLASS_GETITEM = typing.Generic.__dict__["__class_getitem__"]


def _known_class_getitem(cls: type) -> bool:
    owner, raw = mro_lookup(cls, "__class_getitem__")
    return raw is _TYPING_CLASS_GETITEM or (owner is not None and owner.__module__ == "builtins") or (
        isinstance(raw, classmethod) and raw.__func__ is types.GenericAlias)  # collections.abc's


def _real_argument(value: Value) -> Any:
    if value.is_constant():
        return value.as_python_constant()
    from autograph.capture.families.containers import BaseSequenceValue, TupleValue
    if isinstance(value, TupleValue):
        return tuple(_real_argument(v) for v in value.items)
    if isinstance(value, BaseSequenceValue) and value.kind is list:  # ``Callable[[int], T]``: a fresh copy
        return [_real_argument(v) for v in value.items]
    real = value.real_value()  # a class, a TypeVar: Unsupported when capture holds no real object
    if not isinstance(real, (type, typing.TypeVar)) and type(real).__module__ != "typing":
        raise Unsupported(f"{value.describe()} as a type argument", kind="unsupported-operation")
    return real


def class_getitem(tx, cls_value: Value, key: Value) -> Value:
    cls = cls_value.real_value()
    if not isinstance(cls, type) or hasattr(type(cls), "__getitem__") or not _known_class_getitem(cls):
        raise Unsupported(f"indexing {cls_value.describe()}", kind="unsupported-operation")
    tx.guards.class_attr(cls, "__class_getitem__")
    alias = cls[_real_argument(key)]
    return tx.wrap(alias, None, trusted=True)


def _typing_object(obj: Any) -> bool:
    """A special form or generic alias of the ``typing`` module itself (``Optional``, ``List``,
    ``List[int]``): its class's ``__getitem__`` is typing's, not a subclass's."""
    cls = type(obj)
    if cls.__module__ != "typing" or isinstance(obj, type):
        return False
    owner, _ = mro_lookup(cls, "__getitem__")
    return owner is not None and owner.__module__ == "typing"


def typing_getitem(tx, value: Value, obj: Any, key: Value) -> Value | None:
    """``Optional[T]``, ``List[T]``...: the real alias, or None when ``obj`` is no typing object.
    Capture holds ``obj`` by identity (guarded when it was read through a source)."""
    if not _typing_object(obj):
        return None
    argument = _real_argument(key)
    if getattr(value, "source", None) is not None:
        tx.guards.id_(value.source, obj)
    try:
        alias = obj[argument]
    except Exception as exc:  # noqa: BLE001 - Python raises it at run time: let Python do it
        raise Unsupported(f"subscripting {obj!r} raised {type(exc).__name__}", generic=True,
                          kind="python-exception")
    return tx.wrap(alias, None, trusted=True)
