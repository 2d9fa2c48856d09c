"""Guards for what capture found *absent*: an attribute, a key, a global.

Python answers ``hasattr(obj, "z")``, ``getattr(obj, "z", 0)``, ``"k" in d`` and a
global read falling back to builtins from where the name is not. A capture that
decides on such an answer must fail its guards once the name appears: the instance
``__dict__``, each class of the MRO (a class attribute added later), a module's
``__dict__``, the globals dict. Each is one ``KEY_ABSENT`` guard (``'z' not in
obj.__dict__``), evaluated natively. Classes that cannot change (builtin types)
need none.
"""
from __future__ import annotations

import types
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.guards.sources import AttrSource, ObjectSource, Source

_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: builtin and C types; attributes cannot be added


def class_dict_source(klass: type) -> Source:
    return AttrSource(ObjectSource(klass, klass.__qualname__), "__dict__")


def guard_absent_in_classes(tx, cls: type, name: str) -> None:
    """No class of ``cls.__mro__`` (nor of its metaclass's, for a class) defines ``name``."""
    for klass in cls.__mro__:
        if not klass.__flags__ & _IMMUTABLE_TYPE:
            tx.guards.key_absent(class_dict_source(klass), name)


def object_source(value, obj: Any, what: str = "") -> Source:
    """Where the guards read ``obj``: the value's source, else the fixed object itself."""
    return value.source if value.source is not None else ObjectSource(obj, what or type(obj).__qualname__)


def guard_attribute_absent(tx, value, obj: Any, name: str) -> None:
    """``obj.name`` raised AttributeError: guard that it keeps raising it.

    Only for plain lookups (no Python ``__getattr__``/``__getattribute__``, which the caller
    interprets instead); a ``__slots__`` member left unset is re-checked by a HAS_ATTR guard.
    """
    cls = type(obj)
    klass = next((k for k in cls.__mro__ if name in k.__dict__), None)
    if klass is not None:  # an unset slot (or a descriptor raising AttributeError)
        raw = klass.__dict__[name]
        if not isinstance(raw, types.MemberDescriptorType):
            raise Unsupported(f"attribute `.{name}` of {cls.__qualname__} raised AttributeError from a descriptor",
                kind="unsupported-operation")
        src = object_source(value, obj)
        tx.guards.class_attr(cls, name)
        tx.guards.has_attr(src, name, False)
        return
    if isinstance(getattr(obj, "__dict__", None), dict) or isinstance(obj, types.ModuleType):
        tx.guards.key_absent(AttrSource(object_source(value, obj), "__dict__"), name)
    guard_absent_in_classes(tx, cls, name)


def guard_lookup_fails(tx, value, obj: Any, name: str) -> None:
    """A HAS_ATTR guard ``not hasattr(obj, name)``: for objects whose own ``__getattribute__``
    decides (its answer cannot be read off dicts)."""
    tx.guards.has_attr(object_source(value, obj), name, False)


def attribute_error(tx, value, obj: Any, name: str, exc: AttributeError) -> Unsupported:
    """The break raised for a missing attribute, with the guards that keep it missing."""
    guard_attribute_absent(tx, value, obj, name)
    return Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
