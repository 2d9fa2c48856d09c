"""Instances of dict (and OrderedDict) subclasses from outside whose item protocol is dict's own.

A user class deriving from ``dict`` that keeps dict's C item protocol (``__getitem__``,
``__iter__``, ``__len__``, ``__contains__``, no ``__missing__``) reads its table exactly as a
dict does; each of ``keys``/``values``/``items``/``get``/``copy`` it keeps is dict's too. Such an object passed in (or read from outside) is an object value
(attributes, identity and everything else as for any object) whose table is modelled as a dict
from outside: its keys are guarded in order, its items read through it (``obj[k]``), and ``in``,
``len``, iteration and those methods are answered from the model. A subclass of plain ``dict``
that keeps dict's writers too (``__setitem__``, ``update``, ``pop``...) is changed like a dict
from outside: the change is replayed on the object after the graph (``dict.__setitem__(obj,
...)``), which is what its own method does. Anything the class overrides is the object's own
(its Python method inlined, or the object model's break).
"""
from __future__ import annotations

import collections
import types
from dataclasses import dataclass
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.objects import ObjectValue
from autograph.guards.sources import AppliedSource, ItemSource

# the item protocol the table model stands for (methods such as ``get`` or ``values`` are
# answered from the table only where the class keeps dict's, else they are the class's own)
_READERS = ("__getitem__", "__iter__", "__len__", "__contains__", "__bool__", "__missing__")
_WRITERS = ("__setitem__", "__delitem__", "update", "pop", "setdefault", "clear", "popitem", "__ior__")
_METHODS = ("keys", "values", "items", "get", "copy", "__getitem__", "__contains__", "__len__", "__iter__")
_BASES = (dict, collections.OrderedDict)


def _keeps(cls: type, names: tuple) -> bool:
    """Every one of ``names`` is dict's (or OrderedDict's) own C method, or absent."""
    return all(mro_lookup(cls, name)[0] in (*_BASES, None) for name in names)


# readers a class may write in Python (inlined; dict's own reached through ``super()``): the
# guards read the table with dict's own iteration and length, so those stay dict's
_OVERRIDABLE = ("__getitem__", "__contains__", "__bool__")


def _readers_known(cls: type) -> bool:
    """Each reader of the item protocol is dict's own, or (``_OVERRIDABLE``) a Python function of
    the class."""
    return all(mro_lookup(cls, name)[0] in (*_BASES, None) or (
        name in _OVERRIDABLE and isinstance(mro_lookup(cls, name)[1], types.FunctionType)) for name in _READERS)


@dataclass(frozen=True)
class TableItemSource(AppliedSource):
    """``dict.__getitem__(base, key)``: an entry of a dict-subclass object's own table, read past
    a Python ``__getitem__`` of its class (a guard must not run the user's method)."""

    key: Any

    @property
    def expr(self) -> str:
        return f"dict.__getitem__({self.base_source.expr}, {self.key!r})"

    def reader(self):
        key = self.key
        return lambda d: dict.__getitem__(d, key)

    def render(self, ctx):
        return f"{ctx.constant(dict.__getitem__, 'read')}({ctx.expr(self.base_source)}, {ctx.constant(self.key, 'key')})"


class DictSubclassObjectValue(ObjectValue):
    """An instance of a dict subclass from outside, with its table as a dict value (``table``)."""

    def __init__(self, obj, source, table: Value):
        super().__init__(obj, source)
        self.table = table
        self.writable = type(obj).__mro__[1] is dict and _keeps(type(obj), _WRITERS) \
            and not isinstance(obj, collections.OrderedDict)

    def _own(self, tx, name: str) -> bool:
        """Whether the class overrides ``name`` in Python (then its method runs, inlined)."""
        if mro_lookup(type(self.obj), name)[0] in (*_BASES, None):
            return False
        tx.guards.class_attr(type(self.obj), name)
        return True

    def getitem(self, tx, key):
        if self._own(tx, "__getitem__"):
            return super().getitem(tx, key)
        return self.table.getitem(tx, key)

    def contains(self, tx, item):
        if self._own(tx, "__contains__"):
            return super().contains(tx, item)
        return self.table.contains(tx, item)

    def length(self, tx):
        if self._own(tx, "__len__"):
            return super().length(tx)
        return self.table.length(tx)

    def truth(self, tx):
        if self._own(tx, "__bool__") or self._own(tx, "__len__"):
            return super().truth(tx)
        return self.table.truth(tx)

    def iter_items(self, tx):
        if self._own(tx, "__iter__"):
            return super().iter_items(tx)
        return self.table.iter_items(tx)

    def get_iter(self, tx):
        if self._own(tx, "__iter__"):
            return super().get_iter(tx)
        return self.table.get_iter(tx)

    def mapping_items(self, tx) -> list[tuple[Value, Value]]:
        """``dict(obj)``/``{**obj}``/``d.update(obj)``: PyDict_Merge reads the table directly when
        the class keeps dict's ``__iter__`` (a ``keys`` of its own does not run), else through
        ``keys()`` and ``[k]`` (an OrderedDict subclass)."""
        from autograph.capture.families.containers import _key_value
        if mro_lookup(type(self.obj), "__iter__")[1] is dict.__dict__["__iter__"]:
            return [(_key_value(k), v) for k, v in self.table.items.items()]
        keys = self.call_method(tx, "keys", [], {})
        return [(k, self.getitem(tx, k)) for k in keys.iter_items(tx)]

    def setitem(self, tx, key, value):
        if not self.writable:
            return super().setitem(tx, key, value)
        self.table.setitem(tx, key, value)

    def delitem(self, tx, key):
        if not self.writable:
            return super().delitem(tx, key)
        self.table.delitem(tx, key)

    def getattr(self, tx, name):
        if name in _METHODS or (self.writable and name in _WRITERS):
            if mro_lookup(type(self.obj), name)[0] in _BASES and self._instance_lacks(tx, name):
                return TableMethodValue(self, name)
        return super().getattr(tx, name)

    def _instance_lacks(self, tx, name: str) -> bool:
        """Python finds dict's method: the instance ``__dict__`` holds no such name, nor does any
        class before dict in the MRO (guarded: they stay so)."""
        from autograph.capture.families.absence import class_dict_source
        from autograph.guards.sources import AttrSource
        attrs = getattr(self.obj, "__dict__", None)
        if isinstance(attrs, dict):
            if name in attrs:
                return False
            tx.guards.key_absent(AttrSource(self.source, "__dict__"), name)
        for klass in type(self.obj).__mro__:
            if klass in _BASES:
                break
            if not klass.__flags__ & (1 << 8):  # (a class that can still gain the name)
                tx.guards.key_absent(class_dict_source(klass), name)
        return True

    def call_method(self, tx, name, args, kwargs):
        return self.getattr(tx, name).call(tx, args, kwargs)

    def table_method(self, tx, owner: Any, name: str, args: list, kwargs: dict) -> Value:
        """``dict.<name>`` (or OrderedDict's) bound to this object, as ``super().__getitem__(k)`` in
        a method of the class reaches it: run on the table (NotImplemented for another owner)."""
        if owner not in _BASES or not isinstance(self.obj, owner):
            return NotImplemented
        if name in _WRITERS and not self.writable:
            return NotImplemented
        if name == "__getitem__" and len(args) == 1 and not kwargs:
            return self.table.getitem(tx, args[0])
        if name == "__contains__" and len(args) == 1 and not kwargs:
            return self.table.contains(tx, args[0])
        if name == "__len__" and not args and not kwargs:
            return ConstantValue(self.table.length(tx))
        if name == "__iter__" and not args and not kwargs:
            return self.table.get_iter(tx)
        if name == "__setitem__" and len(args) == 2 and not kwargs:
            self.table.setitem(tx, args[0], args[1])
            return ConstantValue(None)
        if name in _METHODS or name in _WRITERS:
            return TableMethodValue(self, name).call(tx, args, kwargs)
        return NotImplemented


class TableMethodValue(Value):
    """``obj.values``, ``obj.get``...: dict's method bound to a dict subclass object."""

    def __init__(self, owner: DictSubclassObjectValue, name: str):
        self.owner, self.name = owner, name

    def describe(self) -> str:
        return f"method .{self.name}() of {self.owner.describe()}"

    def call(self, tx, args, kwargs):
        owner = self.owner
        if self.name in ("__getitem__", "__contains__") and len(args) == 1 and not kwargs:
            return owner.getitem(tx, args[0]) if self.name == "__getitem__" else owner.contains(tx, args[0])
        if self.name == "__len__" and not args and not kwargs:
            return ConstantValue(owner.length(tx))
        if self.name == "__iter__" and not args and not kwargs:
            return owner.get_iter(tx)
        if self.name == "copy":  # dict.copy of a subclass object: a plain dict
            return owner.table.call_method(tx, "copy", args, kwargs)
        return owner.table.call_method(tx, self.name, args, kwargs)

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.owner)}.{self.name}"


# id(real object) -> its value, one per dict-subclass object this capture read
SUBCLASS_OBJECTS = registry.state_slot("dict_subclass_objects", dict, __name__)


def wrap_dict_subclass(tx, obj: Any, source) -> Value | None:
    """The value of a dict-subclass object from outside whose reads are dict's, or None."""
    from autograph.capture.families.builder import _plain_key, _wrap_items
    from autograph.capture.families.containers import DictValue, outside_container, register_outside_container
    cls = type(obj)
    if source is None or cls in _BASES or not isinstance(obj, dict) or not _readers_known(cls) \
            or mro_lookup(cls, "__getattribute__")[0] not in (object, *_BASES):  # (a Python attribute lookup)
        return None
    keys = list(iter(obj))  # (dict's or OrderedDict's own iteration: no user code)
    if not all(_plain_key(k) for k in keys):
        return None
    if outside_container(tx, obj, source) is not None:  # reached before (guarded: the same object)
        return SUBCLASS_OBJECTS.of(tx)[id(obj)]
    g = tx.guards
    g.type_(source, obj)
    g.keys(source, obj)
    table = DictValue({}, source)
    table.identity = obj
    value = DictSubclassObjectValue(obj, source, table)
    SUBCLASS_OBJECTS.of(tx)[id(obj)] = value
    register_outside_container(tx, obj, table)
    item_source = ItemSource if mro_lookup(cls, "__getitem__")[0] in _BASES else TableItemSource
    table.items = dict(zip(keys, _wrap_items(tx, obj, source, [(k, dict.__getitem__(obj, k)) for k in keys],
                                             item_source)))
    return value
