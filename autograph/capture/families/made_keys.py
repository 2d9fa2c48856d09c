"""Objects made during the call, C functions and enum members as dict keys and set elements.

An instance of a user class (or a ``functools.partial``) made in the call has no real object
until the transformed code rebuilds it, but when its class keeps ``object.__hash__`` and
``object.__eq__`` Python hashes and compares it by identity only. Capture holds exactly one
value per such object, so the value itself stands for the identity: two keys are the same key
exactly when they are the same value, as in Python. A class that overrides either method is
not keyed here (its hash or equality would have to be interpreted).

A real object whose hash and equality run no user code -- a C function (``torch.add``, whose
``==`` compares the function and the object it is bound to) or method wrapper
(``Tensor.grad.__get__``), a member of an enum that keeps ``Enum.__hash__`` and
``object.__eq__``, a ``typing`` alias (``Union[int, str]``: typing hashes and compares its
arguments) -- is keyed by the real object itself, so hashing and equality are Python's own."""
from __future__ import annotations

from typing import Any

from autograph.capture.core.base import Value


def _one_value_per_object(value: Value) -> bool:
    """Kinds of values that are one Python object each (never copied, never shared between objects)."""
    from autograph.capture.families.partials import MadePartialValue
    from autograph.capture.families.user_objects import UserObjectValue
    return type(value) in (UserObjectValue, MadePartialValue) and getattr(value, "source", None) is None


def identity_hashed_made_object(value: Value) -> Any | None:
    """The object standing for ``value``'s identity when Python hashes it by identity, else None."""
    if not _one_value_per_object(value):
        return None
    cls = value.python_type()
    if cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__:
        return value
    return None


def hashed_by_real_object(real: Any) -> bool:
    """Whether ``real``'s ``__hash__``/``__eq__`` are C code, ``Enum``'s or ``typing``'s own (no user
    code runs: a typing alias or special form hashes and compares its arguments)."""
    import enum
    import types
    if type(real) in (types.BuiltinFunctionType, types.MethodWrapperType):
        return True
    cls = type(real)
    if cls.__module__ == "typing" and _typing_methods(cls):
        return True
    return isinstance(real, enum.Enum) and cls.__hash__ is enum.Enum.__hash__ and cls.__eq__ is object.__eq__


def _typing_methods(cls: type) -> bool:
    """``typing``'s classes whose ``__hash__`` and ``__eq__`` are typing's own code."""
    from autograph.capture.core.base import mro_lookup
    owners = [mro_lookup(cls, name)[0] for name in ("__hash__", "__eq__")]
    return all(owner is not None and owner.__module__ in ("typing", "builtins") for owner in owners)
