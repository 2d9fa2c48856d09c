"""``types.MappingProxyType``: a read-only, live view of a mapping.

Made in the call (``MappingProxyType(d)``, ``d.keys().mapping``), a :class:`MappingProxyValue`
holds the value of the mapping it views: reads (``mp[k]``, ``in``, ``len``, iteration,
``keys``/``values``/``items``/``get``/``copy``, ``|``, ``==``) are the mapping's own, so they see
every change made to it since, as CPython's proxy does; stores, deletions and ``|=`` raise
CPython's ``TypeError``, other methods (``update``, ``pop``...) its ``AttributeError``. At a break
or return the proxy is rebuilt over the rebuilt mapping, so it stays live.

Passed in (an argument, a global), a proxy is read like a dict from outside: its keys are
guarded in order and its items read through it. The dict it views cannot be named by a source,
so once the call changes any dict from outside (the viewed one, perhaps) further reads of the
proxy break.

A class's namespace (``cls.__dict__``) is a :class:`ClassNamespaceValue`: ``name in``,
``[name]`` and ``.get(name)`` of a constant name are answered from the class, guarded like the
class's attributes (the entry stays the same object, an absent name stays absent); reading all of
it (``dict(cls.__dict__)``, iteration, ``len``, ``copy()``) guards its names in order and each
entry; its live views (``keys()``, ``items()``, ``values()``) break.
"""
from __future__ import annotations

import gc
import types
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families import side_effects

_READERS = frozenset({"keys", "values", "items", "get", "copy", "__getitem__", "__contains__", "__len__",
                      "__iter__", "__reversed__", "__or__", "__ror__", "__eq__", "__ne__"})


def _type_error(text: str) -> Unsupported:
    err = TypeError(text)
    return Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")


class MappingProxyValue(Value):
    """A ``mappingproxy`` over ``mapping`` (a value capture models as a mapping)."""

    def __init__(self, mapping: Value, source=None):
        self.mapping = mapping
        self.source = source

    def describe(self) -> str:
        return f"mappingproxy of {self.mapping.describe()}"

    def python_type(self) -> type:
        return types.MappingProxyType

    def _read(self, tx) -> Value:
        """The viewed mapping, now. A proxy from outside is a snapshot of the dict it views:
        once the call has changed a dict from outside, it may be stale, so reading it breaks."""
        if self.source is not None:
            from autograph.capture.families.containers import DictValue, _outside_containers
            if any(changed and isinstance(value, DictValue) for _, value, changed in _outside_containers(tx)):
                raise Unsupported(f"reading {self.source.expr}, a mappingproxy from outside, after the call changed "
                                  "a dict from outside (perhaps the one it views)", kind="side-effect")
        return self.mapping

    # --- reads: the mapping's own ----------------------------------------------------
    def getitem(self, tx, key):
        return self._read(tx).getitem(tx, key)

    def contains(self, tx, item):
        return self._read(tx).contains(tx, item)

    def length(self, tx):
        return self._read(tx).length(tx)

    def truth(self, tx):
        return self._read(tx).truth(tx)

    def iter_items(self, tx):
        return self._read(tx).iter_items(tx)

    def get_iter(self, tx):
        return self._read(tx).get_iter(tx)

    def mapping_items(self, tx) -> list[tuple[Value, Value]]:
        """``dict(mp)`` / ``d.update(mp)``: the mapping's keys and items (PyDict_Merge)."""
        from autograph.capture.families.containers import mapping_items
        return mapping_items(tx, self._read(tx))

    def getattr(self, tx, name):
        if name in _READERS:
            return ProxyMethodValue(self, name)
        if name == "__class__":
            return tx.wrap(types.MappingProxyType, None, trusted=True)
        if not hasattr(types.MappingProxyType, name):
            err = AttributeError(f"'mappingproxy' object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")
        return super().getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        mapping = self._read(tx)
        if name in ("keys", "values", "items", "get", "copy"):
            return mapping.call_method(tx, name, args, kwargs)  # (mappingproxy calls the mapping's method)
        if name == "__getitem__" and len(args) == 1 and not kwargs:
            return mapping.getitem(tx, args[0])
        if name == "__contains__" and len(args) == 1 and not kwargs:
            return mapping.contains(tx, args[0])
        if name == "__len__" and not args and not kwargs:
            return ConstantValue(mapping.length(tx))
        if name == "__iter__" and not args and not kwargs:
            return mapping.get_iter(tx)
        if name in ("__or__", "__ror__") and len(args) == 1 and not kwargs:
            other = args[0].mapping if isinstance(args[0], MappingProxyValue) else args[0]
            return tx.binary("|", mapping, other) if name == "__or__" else tx.binary("|", other, mapping)
        if name in ("__eq__", "__ne__") and len(args) == 1 and not kwargs:
            return tx.compare(mapping, "==" if name == "__eq__" else "!=", args[0])
        if not hasattr(types.MappingProxyType, name):
            err = AttributeError(f"'mappingproxy' object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")
        raise Unsupported(f"mappingproxy.{name}()", kind="unsupported-operation")

    # --- writes: refused, as CPython does -------------------------------------------
    def setitem(self, tx, key, value):
        raise _type_error("'mappingproxy' object does not support item assignment")

    def delitem(self, tx, key):
        raise _type_error("'mappingproxy' object does not support item deletion")

    def binary_op(self, tx, op, other):
        """``mp | x`` is ``mapping | x`` (a proxy operand stands for its mapping); ``|=`` refuses."""
        if op == "|=":
            raise _type_error("'|=' is not supported by mappingproxy; use '|' instead")
        if op != "|":
            return NotImplemented
        other = other.mapping if isinstance(other, MappingProxyValue) else other
        return tx.binary("|", self._read(tx), other)

    def rbinary_op(self, tx, op, other):
        if op != "|":
            return NotImplemented
        return tx.binary("|", other, self._read(tx))

    def compare_op(self, tx, op, other):
        """mappingproxy's rich comparison is the mapping's (``PyObject_RichCompare(mapping, w)``)."""
        if op not in ("==", "!=", "<", "<=", ">", ">="):
            return NotImplemented
        other = other.mapping if isinstance(other, MappingProxyValue) else other
        return tx.compare(self._read(tx), op, other)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.shared(self, f"{cg.const(types.MappingProxyType)}({cg.reconstruct(self.mapping)})")


class ProxyMethodValue(Value):
    """``mp.keys``, ``mp.get``...: a bound method of a mappingproxy, waiting to be called."""

    def __init__(self, proxy: MappingProxyValue, name: str):
        self.proxy, self.name = proxy, name

    def describe(self) -> str:
        return f"method .{self.name}() of {self.proxy.describe()}"

    def call(self, tx, args, kwargs):
        return self.proxy.call_method(tx, self.name, args, kwargs)

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.proxy)}.{self.name}"


class ClassNamespaceValue(Value):
    """``cls.__dict__``: reads of one constant name, each guarded at the class's own namespace."""

    def __init__(self, cls: type, source=None):
        self.cls = cls
        self.source = source

    def describe(self) -> str:
        return f"mappingproxy of {self.cls.__qualname__}.__dict__"

    def python_type(self) -> type:
        return types.MappingProxyType

    def real_value(self):
        return self.cls.__dict__

    def _entry(self, tx, key: Value) -> tuple[bool, Any]:
        """Whether the namespace holds the constant ``key`` now, and what; guarded both ways."""
        from autograph.guards.sources import AttrSource, ItemSource, ObjectSource
        if not key.is_constant():
            raise Unsupported(f"{self.describe()} read with {key.describe()}", kind="unsupported-operation")
        name = key.as_python_constant()
        namespace = AttrSource(ObjectSource(self.cls, self.cls.__qualname__), "__dict__")
        try:
            present = name in self.cls.__dict__
        except TypeError as exc:  # an unhashable key: Python's error
            raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception") from None
        stored = side_effects.pending(tx, self.cls, name)
        if stored is not None and stored is not side_effects.DELETED:
            return True, stored  # ``Cls.name = v`` earlier in this capture (families/class_stores.py)
        if not present:
            tx.guards.key_absent(namespace, name)
            return False, None
        raw = self.cls.__dict__[name]
        tx.guards.id_(ItemSource(namespace, name), raw)
        return True, raw

    def _wrap(self, tx, name: Any, raw: Any) -> Value:
        from autograph.guards.sources import AttrSource, ItemSource, ObjectSource
        if isinstance(raw, Value):  # a pending store's value
            return raw
        pin = ItemSource(AttrSource(ObjectSource(self.cls, self.cls.__qualname__), "__dict__"), name)
        return tx.wrap(raw, None, pin=pin)

    def _names(self, tx) -> list[str]:
        """Every name of the namespace, in order, guarded (keys in order, each entry the same
        object): reading all of it (``dict(vars(cls))``, iteration, ``len``, ``items()``). A class
        this capture stored into or deleted from breaks (the real namespace is changed after the
        graph)."""
        from autograph.guards.sources import AttrSource, ObjectSource
        if side_effects.stored_into(tx, self.cls):
            raise Unsupported(f"reading all of {self.describe()} after a store to the class in this call",
                              kind="unsupported-operation")
        names = list(self.cls.__dict__)
        tx.guards.keys(AttrSource(ObjectSource(self.cls, self.cls.__qualname__), "__dict__"), names)
        return names

    def _item(self, tx, name: str) -> Value:
        return self._wrap(tx, name, self._entry(tx, ConstantValue(name))[1])

    def iter_items(self, tx):
        return [ConstantValue(name) for name in self._names(tx)]

    def mapping_items(self, tx) -> list[tuple[Value, Value]]:
        """``dict(cls.__dict__)`` / ``d.update(cls.__dict__)``: every name and entry."""
        return [(ConstantValue(name), self._item(tx, name)) for name in self._names(tx)]

    def len(self, tx):
        return ConstantValue(len(self._names(tx)))

    def get_iter(self, tx):
        from autograph.capture.families.containers import SeqIteratorValue, TupleValue
        return SeqIteratorValue(TupleValue(self.iter_items(tx)))

    def contains(self, tx, item):
        return ConstantValue(self._entry(tx, item)[0])

    def getitem(self, tx, key):
        present, raw = self._entry(tx, key)
        if not present:
            err = KeyError(key.as_python_constant())
            raise Unsupported(f"KeyError: {err}", generic=True, exc=err, kind="python-exception")
        return self._wrap(tx, key.as_python_constant(), raw)

    def call_method(self, tx, name, args, kwargs):
        if name == "get" and not kwargs and 1 <= len(args) <= 2:
            present, raw = self._entry(tx, args[0])
            if present:
                return self._wrap(tx, args[0].as_python_constant(), raw)
            return args[1] if len(args) == 2 else ConstantValue(None)
        if name in ("__contains__", "__getitem__") and not kwargs and len(args) == 1:
            return self.contains(tx, args[0]) if name == "__contains__" else self.getitem(tx, args[0])
        if name == "copy" and not args and not kwargs:  # (``keys()``... are live views: not modelled)
            from autograph.capture.families.containers import DictValue
            return DictValue({k.as_python_constant(): v for k, v in self.mapping_items(tx)}, None)
        raise Unsupported(f"{self.describe()}.{name}(...)", kind="unsupported-operation")

    def reconstruct(self, cg):
        return f"{cg.const(self.cls)}.__dict__"


def _viewable(value: Value) -> bool:
    """A mapping capture models whose proxy it can rebuild (``PyMapping_Check``, not a list/tuple)."""
    from autograph.capture.families.collections_values import RealContainerValue
    from autograph.capture.families.containers import DictValue
    if isinstance(value, (DictValue, MappingProxyValue)):
        return True
    return isinstance(value, RealContainerValue) and isinstance(value.real, dict)


def _class_call(tx, cls, args, kwargs):
    if cls is not types.MappingProxyType:
        return NotImplemented
    if kwargs or len(args) != 1:
        return NotImplemented
    (mapping,) = args
    try:
        kind = mapping.python_type()
    except Unsupported:
        kind = None
    if isinstance(kind, type) and (issubclass(kind, (list, tuple)) or not hasattr(kind, "__getitem__")):
        raise _type_error(f"mappingproxy() argument must be a mapping, not {kind.__name__}")
    if not _viewable(mapping):
        return NotImplemented
    return MappingProxyValue(mapping)


def _viewed(obj: types.MappingProxyType) -> Any:
    """The mapping a proxy views (its one referent), or None."""
    refs = gc.get_referents(obj)
    return refs[0] if len(refs) == 1 else None


def _namespace(d: Any) -> bool:
    """Whether ``d`` is a namespace: a class's (its proxy is ``cls.__dict__``), an object's or a
    module's ``__dict__``, a function's globals. Capture changes those by attribute and global
    stores, which a snapshot of the proxy would not see."""
    for r in gc.get_referrers(d):
        if isinstance(r, type):
            if _viewed(r.__dict__) is d:
                return True
        elif isinstance(r, types.FunctionType):
            if r.__globals__ is d:
                return True
        else:
            try:
                if object.__getattribute__(r, "__dict__") is d:
                    return True
            except Exception:  # noqa: BLE001 - no instance dict
                pass
    return False


def _wrap_proxy(tx, obj, source):
    """A proxy from outside over a plain dict of constant keys: a read-only snapshot, guarded."""
    from autograph.capture.families.builder import _plain_key, _wrap_items
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.objects import ObjectValue
    from autograph.guards.sources import AttrSource
    g = tx.guards
    if source is None or (isinstance(source, AttrSource) and source.attr == "__dict__"):  # ``cls.__dict__``
        g.type_(source, obj)
        return ObjectValue(obj, source)
    viewed = _viewed(obj)
    if type(viewed) is not dict or not all(_plain_key(k) for k in viewed) or _namespace(viewed):
        g.type_(source, obj)
        return ObjectValue(obj, source)
    g.type_(source, obj)
    g.keys(source, obj)
    inner = DictValue({}, None)
    inner.identity = viewed  # (read from outside: a change to it is refused, never replayed)
    inner.items = dict(zip(obj, _wrap_items(tx, obj, source, obj.items())))
    return MappingProxyValue(inner, source)


def install() -> None:
    registry.add_class_call_hook(_class_call)
    registry.register_type_wrapper(types.MappingProxyType, _wrap_proxy)
