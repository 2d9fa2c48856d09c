"""Tuples, lists, dicts, slices, torch.Size and unrolled iterators.

Containers created during capture are plain Python lists of values mutated in
place; they are rebuilt at a graph break (once per object, so aliasing holds).
A container that came from an input is read through guards and never mutated
during capture (a mutation is a side effect and breaks before it).
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.breaks import Unsupported
from autograph.capture.values.base import Value, equal_or_identical
from autograph.capture.values.constants import ConstantValue


class BaseSequenceValue(Value):
    kind: type = tuple

    def __init__(self, items: list[Value], source=None):
        self.items = list(items)
        self.source = source

    def describe(self) -> str:
        return f"{self.kind.__name__} of {len(self.items)}"

    def python_type(self) -> type:
        return self.kind

    def is_constant(self) -> bool:
        return all(i.is_constant() for i in self.items)

    def as_python_constant(self) -> Any:
        return self.kind([i.as_python_constant() for i in self.items])

    def iter_items(self, tx) -> list[Value]:
        return list(self.items)

    def length(self, tx) -> int:
        return len(self.items)

    def truth(self, tx) -> bool:
        return bool(self.items)

    def getitem(self, tx, key: Value) -> Value:
        k = key.as_python_constant() if key.is_constant() else None
        if key.is_tensor():  # seq[t] is seq[t.__index__()]: known when t is made of constants only
            k = key.constant_index()
        if isinstance(k, slice):
            return type(self)(self.items[k]) if type(self) is not SizeValue else SizeValue(self.items[k])
        if isinstance(k, int) and not isinstance(k, bool) or isinstance(k, bool):
            try:
                return self.items[k]
            except IndexError:
                raise Unsupported(f"IndexError: {self.kind.__name__} index out of range", generic=True,
                                  kind="python-exception")
        raise Unsupported(f"indexing a {self.kind.__name__} with {key.describe()}", kind="unsupported-operation")

    def getattr(self, tx, name: str) -> Value:
        from autograph.capture.values.builtins import BuiltinMethodValue
        if hasattr(self.kind, name):
            return BuiltinMethodValue(self, name)
        raise Unsupported(f"AttributeError: {self.kind.__name__!r} object has no attribute {name!r}",
                          generic=True, kind="python-exception")

    def call_method(self, tx, name, args, kwargs):
        if name == "index" and not kwargs:
            for i, item in enumerate(self.items):
                if equal_or_identical(tx, item, args[0]):
                    return ConstantValue(i)
            raise Unsupported("ValueError from .index()", generic=True, kind="python-exception")
        if name == "count" and not kwargs:
            return ConstantValue(sum(1 for i in self.items if equal_or_identical(tx, i, args[0])))
        return super().call_method(tx, name, args, kwargs)

    def binary_op(self, tx, op: str, other: Value):
        if op in ("+", "+=") and type(other) is type(self):
            return type(self)(self.items + other.items)
        if op == "+=" and self.kind is list:  # list.__iadd__ extends by any iterable
            return type(self)(self.items + other.iter_items(tx))
        if op in ("*", "*=") and other.is_constant() and _is_index(other.as_python_constant()):
            return type(self)(self.items * other.as_python_constant())
        return NotImplemented

    def rbinary_op(self, tx, op: str, other: Value):
        """``4 * [x]``: int.__mul__ gives up, then the sequence repeats itself."""
        if op == "*" and other.is_constant() and _is_index(other.as_python_constant()):
            return type(self)(self.items * other.as_python_constant())
        return NotImplemented

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        parts = [cg.reconstruct(i) for i in self.items]
        if self.kind is tuple:
            return "(" + "".join(p + ", " for p in parts) + ")"
        return cg.const(self.kind) + "((" + "".join(p + ", " for p in parts) + "))"


def _is_index(x) -> bool:
    return isinstance(x, int) and not isinstance(x, torch.SymInt)


class TupleValue(BaseSequenceValue):
    kind = tuple


class SizeValue(TupleValue):
    """``torch.Size`` with constant (static) sizes."""

    @property
    def kind(self):  # type: ignore[override]
        import torch
        return torch.Size

    def getattr(self, tx, name):
        if name == "numel":
            from autograph.capture.values.builtins import PyFunctionValue
            import math
            return PyFunctionValue(lambda: math.prod(self.as_python_constant()), "numel")
        return super().getattr(tx, name)

    def describe(self) -> str:
        return "torch.Size"


class ListValue(BaseSequenceValue):
    kind = list
    mutable = True

    def _check_mutable(self):
        if self.source is not None:
            raise Unsupported(f"mutation of a list that came from outside ({self.source.expr}) — a side effect",
                              kind="side-effect")

    def call_method(self, tx, name, args, kwargs):
        if name in ("append", "extend", "insert", "pop", "clear", "reverse", "remove") and not kwargs:
            self._check_mutable()
            if name == "append":
                self.items.append(args[0])
            elif name == "extend":
                self.items.extend(args[0].iter_items(tx))
            elif name == "insert":
                self.items.insert(args[0].as_python_constant(), args[1])
            elif name == "pop":
                if not self.items:
                    raise Unsupported("IndexError: pop from empty list", generic=True, kind="python-exception")
                return self.items.pop(*(a.as_python_constant() for a in args))
            elif name == "clear":
                self.items.clear()
            elif name == "reverse":
                self.items.reverse()
            elif name == "remove":
                for i, item in enumerate(self.items):
                    if equal_or_identical(tx, item, args[0]):
                        del self.items[i]
                        break
                else:
                    raise Unsupported("ValueError from list.remove()", generic=True, kind="python-exception")
            return ConstantValue(None)
        if name == "copy" and not args:
            return ListValue(list(self.items))
        return super().call_method(tx, name, args, kwargs)

    def setitem(self, tx, key, value):
        self._check_mutable()
        k = key.as_python_constant()
        if isinstance(k, slice):
            self.items[k] = value.iter_items(tx)
        else:
            try:
                self.items[k] = value
            except IndexError:
                raise Unsupported("IndexError: list assignment index out of range", generic=True,
                                  kind="python-exception")

    def delitem(self, tx, key):
        self._check_mutable()
        del self.items[key.as_python_constant()]

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.shared(self, "[" + ", ".join(cg.reconstruct(i) for i in self.items) + "]")


def _key_value(key: Any) -> Value:
    """The value of a dict key (constants are their own keys; tensors and identity-hashed
    objects are keyed by identity, as their ``__hash__``/``__eq__`` do)."""
    from autograph.capture.values.sets import value_of
    return value_of(key)


def _identity_key(key: Any) -> bool:
    from autograph.capture.values.sets import _Identity
    return isinstance(key, _Identity)


def _namespace_source(source) -> bool:
    """A dict read as an object's ``__dict__`` or a function's globals: stores into it change
    attributes capture reads another way; those stay a break."""
    from autograph.guards.sources import AttrSource
    while source is not None:
        if isinstance(source, AttrSource) and source.attr in ("__dict__", "__globals__"):
            return True
        source = getattr(source, "base", None)
    return False


class DictValue(Value):
    """A dict (insertion order kept) keyed by constants, or by identity for tensors and
    objects hashed by identity (``{param: state}``): insertion order does not depend on
    addresses, so such a dict iterates exactly as Python's."""

    mutable = True

    def __init__(self, items: dict, source=None, kind: type = dict):
        self.items = dict(items)  # python-constant key -> Value
        self.source = source
        self.kind = kind

    def describe(self) -> str:
        return f"dict of {len(self.items)}"

    def python_type(self):
        return self.kind

    def has_identity_keys(self) -> bool:
        return any(_identity_key(k) for k in self.items)

    def is_constant(self):
        return all(v.is_constant() for v in self.items.values()) and not self.has_identity_keys()

    def as_python_constant(self):
        return self.kind((k, v.as_python_constant()) for k, v in self.items.items())

    def truth(self, tx):
        return bool(self.items)

    def length(self, tx):
        return len(self.items)

    def iter_items(self, tx):
        return [_key_value(k) for k in self.items]

    def _key(self, key: Value):
        if key.is_constant():
            return key.as_python_constant()
        from autograph.capture.values.sets import key_of
        try:
            return key_of(key)  # a tensor or an identity-hashed object: keyed by identity
        except Unsupported:
            raise Unsupported(f"dict key {key.describe()} is not a constant", kind="unsupported-operation") from None

    def getitem(self, tx, key):
        k = self._key(key)
        if k not in self.items:
            raise Unsupported(f"KeyError: {k!r}", generic=True, kind="python-exception")
        return self.items[k]

    def _mutating(self, tx, method: str, args: list[Value], kwargs: dict | None = None) -> None:
        """A dict from outside changes for real after the graph (``dict.<method>(d, *args)`` replayed
        in order with the other side effects); this value, which later reads see, changes now."""
        if self.source is not None:
            if self.kind is not dict or _namespace_source(self.source):
                raise Unsupported(f"mutation of a {self.kind.__name__} that came from outside "
                                  f"({self.source.expr}) — a side effect", kind="side-effect")
            for entry in _outside_dicts(tx):
                if entry[1] is self and not entry[2]:
                    entry[2] = True  # from now on every other dict read from outside is guarded distinct
                    for _, other, _ in _outside_dicts(tx):
                        if other is not self:
                            _distinct_guard(tx, self, other)
            from autograph.capture.values import side_effects
            side_effects.record_call(tx, getattr(dict, method), [self, *args], dict(kwargs or {}))

    def setitem(self, tx, key, value):
        k = self._key(key)
        self._mutating(tx, "__setitem__", [key, value])
        self.items[k] = value

    def delitem(self, tx, key):
        k = self._key(key)
        if k not in self.items:
            raise Unsupported(f"KeyError: {k!r}", generic=True, kind="python-exception")
        self._mutating(tx, "__delitem__", [key])
        del self.items[k]

    def contains(self, tx, item):
        return ConstantValue(self._key(item) in self.items)

    def getattr(self, tx, name):
        from autograph.capture.values.builtins import BuiltinMethodValue
        if hasattr(self.kind, name):
            return BuiltinMethodValue(self, name)
        if self.kind.__dictoffset__ == 0 and not hasattr(self.kind, "__getattr__"):  # no instance attributes
            exc = AttributeError(f"{self.kind.__name__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        return super().getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name in ("keys", "values", "items") and not args and not kwargs:
            return DictViewValue(self, name)
        if name == "get" and not kwargs:
            k = self._key(args[0])
            if k in self.items:
                return self.items[k]
            return args[1] if len(args) > 1 else ConstantValue(None)
        if name == "update" and len(args) <= 1:
            self._mutating(tx, "update", args, kwargs)
            if args:
                other = args[0]
                if isinstance(other, DictValue):
                    self.items.update(other.items)
                elif hasattr(other, "mapping_items"):  # a mapping: its keys and m[k]
                    for k, v in other.mapping_items(tx):
                        self.items[self._key(k)] = v
                else:
                    for pair in other.iter_items(tx):
                        k, v = pair.iter_items(tx)
                        self.items[self._key(k)] = v
            for k, v in kwargs.items():
                self.items[k] = v
            return ConstantValue(None)
        if name == "pop" and not kwargs:
            k = self._key(args[0])
            if k in self.items:
                self._mutating(tx, "__delitem__", [args[0]])
                return self.items.pop(k)
            if len(args) > 1:
                return args[1]
            raise Unsupported(f"KeyError: {k!r}", generic=True, kind="python-exception")
        if name == "setdefault":
            k = self._key(args[0])
            if k not in self.items:
                value = args[1] if len(args) > 1 else ConstantValue(None)
                self._mutating(tx, "__setitem__", [args[0], value])
                self.items[k] = value
            return self.items[k]
        if name == "copy":
            return DictValue(self.items, kind=self.kind)
        return super().call_method(tx, name, args, kwargs)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        body = ", ".join(f"{_key_expr(cg, k)}: {cg.reconstruct(v)}" for k, v in self.items.items())
        text = "{" + body + "}"
        if self.kind is not dict:
            text = f"{cg.const(self.kind)}({text})"
        return cg.shared(self, text)


def _outside_dicts(tx) -> list:
    """``[(real dict, DictValue, mutated)]`` of the dicts this capture read from outside."""
    table = getattr(tx, "outside_dicts", None)
    if table is None:
        table = tx.outside_dicts = []
    return table


def _distinct_guard(tx, a: Value, b: Value) -> None:
    from autograph.guards import model
    sa, sb = a.source, b.source
    tx.guards._add(("distinct", sa, sb), lambda: model.python_guard(
        f"{sa.expr} is not {sb.expr}", lambda x, y: x is not y, [sa, sb]))


def outside_dict(tx, obj: dict, source) -> "DictValue | None":
    """The value of ``obj`` if this capture read it already (through ``source`` or another one:
    then guarded to be the same object again)."""
    if source is None:
        return None
    for real, value, _ in _outside_dicts(tx):
        if real is obj:
            if value.source != source:
                from autograph.guards import model
                a, b = value.source, source
                tx.guards._add(("alias", a, b), lambda a=a, b=b: model.python_guard(
                    f"{a.expr} is {b.expr}", lambda x, y: x is y, [a, b]))
            return value
    return None


def register_outside_dict(tx, obj: dict, value: "DictValue") -> "DictValue":
    if value.source is not None:
        table = _outside_dicts(tx)
        for _, other, mutated in table:
            if mutated:  # distinct when read: must be distinct for the store to miss it
                _distinct_guard(tx, other, value)
        table.append([obj, value, False])
    return value


def _key_expr(cg, key: Any) -> str:
    if _identity_key(key):
        return cg.reconstruct(key.value)
    return repr(key) if type(key) in (str, int) else cg.const(key)


def mapping_items(tx, mapping: Value) -> list[tuple[Value, Value]]:
    """The pairs ``dict(m)`` and ``f(**m)`` copy (CPython's ``PyDict_Merge``): a dict's own
    items, else ``m.keys()`` and ``m[k]`` for each key, run as the mapping's methods."""
    if isinstance(mapping, DictValue):
        return [(_key_value(k), v) for k, v in mapping.items.items()]
    try:
        has_keys = hasattr(mapping.python_type(), "keys")
    except Unsupported:
        has_keys = False
    if not has_keys:
        raise Unsupported(f"** of {mapping.describe()}", kind="unsupported-operation")
    keys = mapping.call_method(tx, "keys", [], {})
    return [(k, mapping.getitem(tx, k)) for k in keys.iter_items(tx)]


class DictViewValue(Value):
    """``d.keys()`` / ``d.values()`` / ``d.items()`` of a dict made or read during capture: a
    live view, so every use sees the dict's contents at that moment (as Python's views do)."""

    def __init__(self, mapping: DictValue, kind: str):
        self.mapping = mapping
        self.kind = kind  # "keys" | "values" | "items"

    def describe(self):
        return f"dict_{self.kind}"

    def python_type(self):
        return type(getattr({}, self.kind)())

    def _current(self) -> list[Value]:
        items = self.mapping.items
        if self.kind == "keys":
            return [_key_value(k) for k in items]
        if self.kind == "values":
            return list(items.values())
        return [TupleValue([_key_value(k), v]) for k, v in items.items()]

    def iter_items(self, tx):
        return self._current()

    def length(self, tx):
        return len(self.mapping.items)

    def truth(self, tx):
        return bool(self.mapping.items)

    def is_constant(self):
        # keys views compare and combine by their keys alone (constants unless keyed by identity)
        if self.kind == "keys":
            return not self.mapping.has_identity_keys()
        return self.mapping.is_constant()

    def as_python_constant(self):
        if self.kind == "keys":
            return dict.fromkeys(self.mapping.items).keys()
        return getattr(self.mapping.as_python_constant(), self.kind)()

    def contains(self, tx, item):
        if self.kind == "keys":
            return self.mapping.contains(tx, item)
        return super().contains(tx, item)

    def getattr(self, tx, name):
        from autograph.capture.values.builtins import BuiltinMethodValue
        if self.is_constant() and callable(getattr(self.python_type(), name, None)):
            return BuiltinMethodValue(self, name)
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.mapping)}.{self.kind}()"


class SliceValue(Value):
    def __init__(self, start: Value, stop: Value, step: Value):
        self.parts = (start, stop, step)

    def describe(self):
        return "slice"

    def python_type(self):
        return slice

    def is_constant(self):
        return all(p.is_constant() for p in self.parts)

    def as_python_constant(self):
        return slice(*(p.as_python_constant() for p in self.parts))

    def reconstruct(self, cg):
        return "slice(" + ", ".join(cg.reconstruct(p) for p in self.parts) + ")"


class ListIteratorValue(Value):
    """An iterator unrolled at capture time: the items still to come."""

    mutable = True

    def __init__(self, items: list[Value], kind: str = "iterator"):
        self.items = list(items)
        self.index = 0
        self.kind = kind

    def describe(self):
        return self.kind

    def python_type(self):
        return type(iter(()))

    def next(self, tx) -> Value | None:
        if self.index >= len(self.items):
            return None
        item = self.items[self.index]
        self.index += 1
        return item

    def iter_items(self, tx):
        rest = self.items[self.index:]
        self.index = len(self.items)
        return rest

    def length(self, tx):
        if self.kind == "iterator":
            raise Unsupported("len() of an iterator", generic=True, kind="python-exception")
        return len(self.items) - self.index

    def reconstruct(self, cg):
        rest = self.items[self.index:]
        return cg.shared(self, "iter((" + "".join(cg.reconstruct(i) + ", " for i in rest) + "))")
