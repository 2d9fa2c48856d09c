"""Enum members: ``Color(2)`` looks the member up, ``member.name``/``member.value`` read it.

Members are the real objects (``ObjectValue``s, compared by identity). Calling an enum class
with one constant is a lookup in the class's own tables when its ``_missing_`` and member
``__new__`` are the ``enum`` module's: run for real at capture and pinned by a PYTHON guard
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
from autograph.capture.core.base import mro_lookup


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


def install() -> None:
    registry.add_class_call_hook(_enum_call)
