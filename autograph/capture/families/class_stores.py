"""Stores to attributes of user classes (``Value.count += 1`` in ``__init__``, a small autograd
engine's node counter).

Modelling strategy: *replay*. ``Cls.name = v`` is recorded as a store event on the class, like
an attribute store on an object from outside (families/side_effects.py): the transformed code
makes it after the graph, in program order with the other effects, and the graph is split
before an operation that can raise only at run time while it is pending. Every lookup later in
the capture that resolves to the class's entry sees the stored value: through the class
(``Cls.name``, ``getattr(Cls, ...)``, ``type(obj).name``), through an instance whose own
``__dict__`` lacks the name (instances made in the call, from outside, private copies), through
``super()`` and through ``Cls.__dict__[name]`` -- :func:`resolved` answers all of them, guarding
that no class before the entry's in the MRO (nor the instance's dict) gains the name.

Only stores whose effect on lookups this module sees whole are modelled (:func:`refusal`): a
plain Python class (every class of its MRO but ``object`` written in Python, outside the
libraries capture trusts: no other family models its instances), ``type``'s own
``__setattr__``, a name the class or a base already binds to a plain value (not a special name,
whose store also updates the type's slots; not a method or descriptor, which other lookups
read off the class directly; no subclass finding a descriptor of that name after the class),
and a stored value that is no descriptor. Anything else breaks
with :data:`CLASS_STORE`.
"""
from __future__ import annotations

from typing import Any

from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.families import side_effects

CLASS_STORE = break_kind(
    "class-attribute-store", "a store to a class attribute that capture does not replay: a special "
    "name (`__add__`), a method or descriptor replaced, a name no class of the MRO defines, a "
    "library or C class, or a metaclass with its own `__setattr__`; the store runs in Python",
    "keep counters and caches as plain values a class body defines (`count = 0`), or store them on "
    "an instance or a module")

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: made by a class statement
_IMMUTABLE_TYPE = 1 << 8


def _is_descriptor(kind: type) -> bool:
    return hasattr(kind, "__get__")


def plain_class(cls: type) -> bool:
    """Every class of ``cls.__mro__`` but ``object`` is a Python class of user code."""
    from autograph.capture.families.objects import TRUSTED_MODULES
    for klass in cls.__mro__:
        if klass is object:
            continue
        if not klass.__flags__ & _HEAP_TYPE or klass.__flags__ & _IMMUTABLE_TYPE:
            return False
        if (klass.__module__ or "").split(".")[0] in TRUSTED_MODULES:
            return False
    return True


def refusal(cls: type, name: str, value: Value) -> str | None:
    """Why ``cls.name = value`` is not modelled, or None when it is."""
    if type(cls).__setattr__ is not type.__setattr__:
        return f"the metaclass {type(cls).__qualname__} defines __setattr__"
    if not plain_class(cls):
        return "a class deriving from a C type or a library class"
    if name.startswith("__") and name.endswith("__"):
        return "a special name (the store also updates the type's slots)"
    if _is_descriptor(type(mro_lookup(type(cls), name)[1])):
        return f"the metaclass {type(cls).__qualname__} has a descriptor of that name"
    holder = next((k for k in cls.__mro__ if name in k.__dict__), None)
    if holder is None:
        return "a name no class of its MRO defines"
    if _is_descriptor(type(holder.__dict__[name])):
        return "it replaces a method or descriptor"
    if holder is not cls and _shadows_a_descriptor(cls, name):
        return "a subclass finds a descriptor of that name after it"
    try:
        kind = value.python_type()
    except Unsupported:
        return f"storing {value.describe()}"
    if _is_descriptor(kind):
        return f"the value is a {kind.__qualname__} (a descriptor)"
    return None


def _subclasses(cls: type) -> list[type]:
    out, todo = [], list(type.__subclasses__(cls))
    while todo:
        klass = todo.pop()
        if klass not in out:
            out.append(klass)
            todo.extend(type.__subclasses__(klass))
    return out


def _shadows_a_descriptor(cls: type, name: str) -> bool:
    """Whether a subclass of ``cls`` (which inherits ``name``) would, once ``cls`` holds the name,
    resolve it to ``cls``'s entry where it now resolves to a descriptor of a class after ``cls`` in
    its MRO (a mixin): lookups that read the class dicts directly would still see the descriptor."""
    for klass in _subclasses(cls):
        mro = klass.__mro__
        holder = next((k for k in mro if name in k.__dict__), None)
        if holder is not None and mro.index(holder) > mro.index(cls) \
                and _is_descriptor(type(holder.__dict__[name])):
            return True
    return False


def store(tx, class_value: Value, cls: type, name: str, value: Value) -> None:
    """``cls.name = value``: recorded and replayed after the graph, or a :data:`CLASS_STORE` break."""
    why = refusal(cls, name, value)
    if why is not None:
        raise Unsupported(f"`{cls.__qualname__}.{name} = ...`: {why}", kind=CLASS_STORE)
    side_effects.record_store(tx, class_value, cls, name, value)


def resolved(tx, cls: type, name: str) -> Value | None:
    """The value this capture stored into the class entry that ``cls.name`` resolves to through
    ``cls.__mro__``, or None when the lookup meets no such store (the caller reads the real class).
    The classes before the entry's are guarded to stay without the name."""
    from autograph.capture.families.absence import class_dict_source
    if not side_effects.pending_in(tx):
        return None
    mro = cls.__mro__
    holder, stored = None, None
    for klass in mro:
        stored = side_effects.pending(tx, klass, name)
        if stored is not None and stored is not side_effects.DELETED:
            holder = klass
            break
        if name in klass.__dict__:
            return None  # the real entry of a class the capture did not store into
    if holder is None:
        return None
    for klass in mro[:mro.index(holder)]:
        if not klass.__flags__ & _IMMUTABLE_TYPE:
            tx.guards.key_absent(class_dict_source(klass), name)
    return stored


def resolved_for_instance(tx, value: Value, obj: Any, name: str) -> Value | None:
    """:func:`resolved` for ``obj.name`` of an instance from outside whose ``__dict__`` lacks the
    name now: also guarded to stay without it."""
    from autograph.capture.families.absence import object_source
    from autograph.guards.sources import AttrSource
    stored = resolved(tx, type(obj), name)
    if stored is not None and isinstance(getattr(obj, "__dict__", None), dict):
        tx.guards.key_absent(AttrSource(object_source(value, obj), "__dict__"), name)
    return stored
