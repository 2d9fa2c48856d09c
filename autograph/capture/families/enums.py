"""Enum members: ``Color(2)`` looks the member up, ``member.name``/``member.value`` read it.

Members are the real objects (``ObjectValue``s, compared by identity). Calling an enum class
with one constant is a lookup in the class's own tables when its ``_missing_`` and member
``__new__`` are the ``enum`` module's: run for real at capture and pinned by a PINNED_IDENTITY guard
that asks again (``Color(2) is <member>``); a value with no member raises the real ValueError
where Python raises it. ``name``/``value`` are ``enum.property`` descriptors of ``Enum`` that read
the member's ``_name_``/``_value_``: read for real through the member's source (objects.py).
"""
from __future__ import annotations

import enum
import types
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue, is_literal


_ENUM_NEW = enum.Enum.__dict__["__new__"].__func__


def is_enum_member_attribute(klass: type | None, attr: Any) -> bool:
    """``Enum``'s own ``name``/``value`` (and the like): descriptors of the ``enum`` module that
    read the member's own fields, no user code."""
    return (klass is not None and isinstance(attr, types.DynamicClassAttribute)
            and klass.__module__ == "enum")


def _plain_lookup(cls: type) -> bool:
    """Calling ``cls`` with a value runs only the ``enum`` module's lookup code."""
    missing_owner = mro_lookup(cls, "_missing_")[0]
    new = mro_lookup(cls, "__new__")[1]  # Enum's lookup (a member's own __new__ is __new_member__)
    return (missing_owner is not None and missing_owner.__module__ == "enum"
            and getattr(new, "__func__", new) is _ENUM_NEW
            and mro_lookup(type(cls), "__call__")[0] is enum.EnumMeta)


def _enum_call(tx, cls, args, kwargs):
    if not isinstance(cls, enum.EnumMeta) or kwargs or len(args) != 1 or not args[0].is_constant():
        return NotImplemented
    if not _plain_lookup(cls):
        return NotImplemented
    value = args[0].as_python_constant()
    try:
        member = cls(value)
    except ValueError as exc:
        raise Unsupported(f"ValueError: {exc}", generic=True, exc=exc, kind="python-exception") from None
    return tx.wrap(member, None, pin=lambda: cls(value), what=f"{cls.__qualname__}({value!r})")


class MadeEnumClass(Value):
    """An enum class the functional API made in the call (``Enum("E", names)``): Python makes a
    new class on every call. Capture makes one for real on the same constant arguments (the
    module name eager would give it included) to read its members' names and values; the class
    or a member still in use at a graph break or return would have to be this call's own, so it
    cannot be rebuilt (a break)."""

    def __init__(self, cls: type):
        self.cls = cls

    def describe(self) -> str:
        return f"enum class {self.cls.__qualname__} (made during the call)"

    def python_type(self):
        return type(self.cls)

    def getattr(self, tx, name):
        if name in self.cls.__members__:
            return MadeEnumMember(self, self.cls.__members__[name])
        if name in ("__name__", "__qualname__", "__module__"):
            return ConstantValue(getattr(self.cls, name))
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        if kwargs or len(args) != 1 or not args[0].is_constant():
            raise Unsupported(f"calling {self.describe()}", kind="unsupported-call")
        value = args[0].as_python_constant()
        try:
            return MadeEnumMember(self, self.cls(value))
        except ValueError as exc:
            raise Unsupported(f"ValueError: {exc}", generic=True, exc=exc, kind="python-exception") from None

    def reconstruct(self, cg):
        raise Unsupported(f"{self.describe()} is still in use at a graph break", kind="cannot-rebuild")


class MadeEnumMember(Value):
    """A member of a :class:`MadeEnumClass`: its ``name`` and (literal) ``value`` are read."""

    def __init__(self, owner: MadeEnumClass, member: enum.Enum):
        self.owner, self.member = owner, member

    def describe(self) -> str:
        return f"member {self.member!r} of {self.owner.describe()}"

    def python_type(self):
        return self.owner.cls

    def getattr(self, tx, name):
        if name in ("name", "value", "_name_", "_value_") and is_literal(getattr(self.member, name)):
            return ConstantValue(getattr(self.member, name))
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        raise Unsupported(f"{self.describe()} is still in use at a graph break", kind="cannot-rebuild")


_NOT_CONSTANT = object()


def _constant_argument(tx, value: Value) -> Any:
    """The real argument for a constant value, or for a mapping made in the call whose items are
    constants (``OrderedDict(a=1, b=2)``, a real container of stand-ins: a copy of its type)."""
    if value.is_constant():
        return value.as_python_constant()
    from autograph.capture.families.collections_values import RealContainerValue
    from autograph.capture.families.tokens import from_real
    if isinstance(value, RealContainerValue) and isinstance(value.real, dict):
        items = [(k, from_real(tx, v)) for k, v in value.real.items()]
        if all(type(k) is str and v.is_constant() for k, v in items):
            return type(value.real)((k, v.as_python_constant()) for k, v in items)
    return _NOT_CONSTANT


def _functional_api(tx, cls, args, kwargs):
    """``Enum("E", names, ...)`` on constants, for the ``enum`` module's own classes (no user
    ``__init_subclass__`` or metaclass code runs)."""
    if not (isinstance(cls, enum.EnumMeta) and cls.__module__ == "enum" and type(cls).__module__ == "enum"
            and len(args) + ("names" in kwargs) >= 2):
        return NotImplemented
    real_args = [_constant_argument(tx, a) for a in args]
    real_kwargs = {k: _constant_argument(tx, v) for k, v in kwargs.items()}
    if any(a is _NOT_CONSTANT for a in (*real_args, *real_kwargs.values())):
        return NotImplemented
    if real_kwargs.get("module") is None:  # eager names the calling frame's module
        real_kwargs["module"] = tx.frames[-1].fn_globals.get("__name__", "__main__")
    try:
        made = cls(*real_args, **real_kwargs)
    except (TypeError, ValueError) as exc:
        raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception") from None
    return MadeEnumClass(made)


def install() -> None:
    registry.add_class_call_hook(_enum_call)
    registry.add_class_call_hook(_functional_api)
