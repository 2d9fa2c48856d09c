"""Calling a ``TypedDict`` class: ``typing``'s ``_TypedDictMeta`` (and ``typing_extensions``')
sets ``__call__ = dict``, so ``Movie(title=t, year=1999)`` is ``dict(title=t, year=1999)``: a plain
dict, no checks. Modelled as exactly that: a class whose metaclass's ``__call__`` is the ``dict``
type itself is called as ``dict`` (the builtins family's dict). The class is guarded by identity
where it was read, so its metaclass is fixed."""
from __future__ import annotations

from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value, mro_lookup


def _call_as_dict(tx, cls: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``CLASS_CALL_HOOKS`` entry: a class whose metaclass calls ``dict`` instead of constructing."""
    if not isinstance(cls, type) or mro_lookup(type(cls), "__call__")[1] is not dict:
        return NotImplemented
    from autograph.capture.families.builtins import call_builtin_type
    return call_builtin_type(tx, dict, args, kwargs)


def install() -> None:
    registry.add_class_call_hook(_call_as_dict)
