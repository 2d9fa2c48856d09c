"""Tuples, lists, dicts, slices, torch.Size and unrolled iterators.

Containers created during capture are plain Python lists of values mutated in
place; they are rebuilt at a graph break (once per object, so aliasing holds).
A container that came from an input is read through guards and never mutated
during capture (a mutation is a side effect and breaks before it).
"""
from __future__ import annotations

import collections
from typing import Any

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.families import cycles
from autograph.capture.core.base import Value, equal_or_identical, mro_lookup, plain_class_attribute
from autograph.capture.core.constants import ConstantValue
from autograph.capture.core.registry import state_slot
from autograph.guards.sources import AttrSource


class BaseSequenceValue(Value):
    kind: type = tuple

    def __init__(self, items: list[Value], source=None):
        self.items = list(items)
        self.source = source

    def describe(self) -> str:
        return f"{self.kind.__name__} of {len(self.items)}"

    def _fresh(self, items: list[Value]) -> "BaseSequenceValue":
        """A new sequence of this kind made by the call (a slice, ``+``, ``*``)."""
        return type(self)(items)

    def python_type(self) -> type:
        return self.kind

    def is_constant(self) -> bool:
        return cycles.all_items(self, self.items, lambda i: i.is_constant())

    def as_python_constant(self) -> Any:
        return self.kind([i.as_python_constant() for i in self.items])

    def iter_items(self, tx) -> list[Value]:
        return list(self.items)

    def get_iter(self, tx) -> Value:
        return SeqIteratorValue(self)

    def length(self, tx) -> int:
        return len(self.items)

    def truth(self, tx) -> bool:
        return bool(self.items)

    def getitem(self, tx, key: Value) -> Value:
        k = key.as_python_constant() if key.is_constant() else None
        if key.is_tensor():  # seq[t] is seq[t.__index__()]: known when t is made of constants only
            k = key.constant_index()
        if isinstance(k, slice):
            return self._fresh(self.items[k]) if type(self) is not SizeValue else SizeValue(self.items[k])
        if isinstance(k, int) and not isinstance(k, bool) or isinstance(k, bool):
            try:
                return self.items[k]
            except IndexError:
                what = "tuple" if issubclass(self.kind, tuple) else "list"
                err = IndexError(f"{what} index out of range")
                raise Unsupported(f"IndexError: {err}", generic=True, exc=err, kind="python-exception")
        raise Unsupported(f"indexing a {self.kind.__name__} with {key.describe()}", kind="unsupported-operation")

    def getattr(self, tx, name: str) -> Value:
        from autograph.capture.families.builtins import BuiltinMethodValue
        data = plain_class_attribute(tx, self, name)  # `l.__class__`: data, not a method
        if data is not None:
            return data
        if hasattr(self.kind, name):
            return BuiltinMethodValue(self, name)
        err = AttributeError(f"{self.kind.__name__!r} object has no attribute {name!r}")
        raise Unsupported(f"AttributeError: {err}", generic=True, exc=err,
            kind="python-exception")  # a C type: nothing can appear

    def call_method(self, tx, name, args, kwargs):
        protocol = _PROTOCOL_METHODS.get((name, len(args)))
        if protocol is not None and not kwargs and mro_lookup(self.python_type(), name)[0] in (list, tuple):
            # ``p.__iter__()`` is ``iter(p)``: the same operation (not a subclass's own method)
            out = protocol(self, tx, *args)
            if out is not NotImplemented:
                return out
        if name in ("index", "count") and not kwargs and args:
            if self.is_constant() and all(a.is_constant() for a in args):
                return self.fold_method(tx, name, args, kwargs)
            if name == "count" and len(args) == 1:
                return ConstantValue(sum(1 for i in self.items if equal_or_identical(tx, i, args[0])))
            if name == "index" and len(args) <= 3 and all(a.is_constant() for a in args[1:]):
                bounds = slice(*(a.as_python_constant() for a in args[1:])) if len(args) > 1 else slice(None)
                for i in range(len(self.items))[bounds]:  # start/stop clipped as list.index clips them
                    if equal_or_identical(tx, self.items[i], args[0]):
                        return ConstantValue(i)
                raise _not_found(self.kind, "index", args[0])
        return self.fold_method(tx, name, args, kwargs)

    def fold_method(self, tx, name, args, kwargs):
        """A method that does not change the sequence, run for real on its constant items."""
        from autograph.capture.families.builtins import BuiltinMethodValue
        method = self.getattr(tx, name)
        if not isinstance(method, BuiltinMethodValue):  # a subclass's own (a named tuple's method)
            return method.call(tx, args, kwargs)
        if name in _SEQUENCE_READERS and self.is_constant() and all(a.is_constant() for a in args) \
                and all(v.is_constant() for v in kwargs.values()):
            from autograph.capture.families.builtins import fold
            return fold(tx, getattr(self.as_python_constant(), name), args, kwargs, f"{self.kind.__name__}.{name}")
        raise _argument_error(self.kind, name, args, kwargs) or \
            Unsupported(f"{self.kind.__name__}.{name}() on {self.describe()}", kind="unsupported-operation")

    def binary_op(self, tx, op: str, other: Value):
        inplace = op.endswith("=") and self.mutable
        base = op.rstrip("=")
        if base == "+":
            if inplace:  # list += any iterable: extends this very list
                self._check_mutable()
                self._changed(tx, "extend", TupleValue(_extend(tx, self.items, other)))
                return self
            if type(other) is type(self):
                return self._fresh(self.items + other.items)
        if base == "*" and other.is_constant() and _is_index(other.as_python_constant()):
            n = other.as_python_constant()
            if inplace:  # list *= n: repeats this very list
                self._check_mutable()
                self.items[:] = self.items * n
                self._changed(tx, "__imul__", other)
                return self
            return self._fresh(self.items * n)
        return NotImplemented

    def rbinary_op(self, tx, op: str, other: Value):
        """``4 * [x]``: int.__mul__ gives up, then the sequence repeats itself."""
        if op == "*" and other.is_constant() and _is_index(other.as_python_constant()):
            return self._fresh(self.items * other.as_python_constant())
        return NotImplemented

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        if self.identity is not None:  # a real object read from outside (pinned): that object
            return cg.const(self.identity)
        cycles.refuse_self_holding_tuple(self)
        parts = [cg.reconstruct(i) for i in self.items]
        if self.kind is tuple:
            return "(" + "".join(p + ", " for p in parts) + ")"
        return cg.const(self.kind) + "((" + "".join(p + ", " for p in parts) + "))"


def _inplace(op: str):
    def run(seq: "BaseSequenceValue", tx, other: Value) -> Value:
        if not seq.mutable:  # a tuple has no __iadd__/__imul__
            return NotImplemented
        out = seq.binary_op(tx, op, other)
        if out is NotImplemented:
            raise _argument_error(list, "__iadd__" if op == "+=" else "__imul__", [other], {}) or Unsupported(f"list.__{'iadd' if op == '+=' else 'imul'}__() with {other.describe()}",
                              kind="unsupported-operation")
        return out
    return run


def _stored(method: str):
    def run(seq: "BaseSequenceValue", tx, *args: Value) -> Value:
        if not seq.mutable:
            return NotImplemented
        getattr(seq, method)(tx, *args)
        return ConstantValue(None)
    return run


# special methods called by name, with their arity: the operation they implement
_PROTOCOL_METHODS: dict = {
    ("__iter__", 0): lambda seq, tx: seq.get_iter(tx),
    ("__len__", 0): lambda seq, tx: ConstantValue(seq.length(tx)),
    ("__getitem__", 1): lambda seq, tx, key: seq.getitem(tx, key),
    ("__add__", 1): lambda seq, tx, other: seq.binary_op(tx, "+", other),
    ("__mul__", 1): lambda seq, tx, other: seq.binary_op(tx, "*", other),
    ("__iadd__", 1): _inplace("+="),
    ("__imul__", 1): _inplace("*="),
    ("__setitem__", 2): _stored("setitem"),
    ("__delitem__", 1): _stored("delitem"),
}


def _argument_error(kind: type, name: str, args: list[Value], kwargs: dict) -> Unsupported | None:
    """The TypeError ``seq.<name>(*args)`` raises whatever the sequence holds (a wrong number or
    type of arguments): the real method run on an empty sequence with the constant arguments.
    None when it does not raise a TypeError there (the contents matter, or nothing is wrong)."""
    base = list if issubclass(kind, list) else tuple
    if not hasattr(base, name) or not all(a.is_constant() for a in [*args, *kwargs.values()]):
        return None
    try:
        getattr(base(), name)(*(a.as_python_constant() for a in args),
                              **{k: v.as_python_constant() for k, v in kwargs.items()})
    except TypeError as err:
        return Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
    except Exception:  # noqa: BLE001 - depends on what the sequence holds: not decided here
        return None
    return None


def _not_found(kind: type, method: str, item: Value) -> Unsupported:
    """The ValueError of ``seq.index(x)``/``list.remove(x)`` for a missing ``x``: the real method's
    own, run on an empty sequence (its message may show ``repr(x)``: known for constants only)."""
    base = list if issubclass(kind, list) else tuple
    probe = item.as_python_constant() if item.is_constant() else None
    if not item.is_constant() and base is list and method == "index":
        return Unsupported(f"ValueError: {item.describe()} is not in list", generic=True, kind="python-exception")
    try:
        getattr(base(), method)(probe)
    except ValueError as err:
        return Unsupported(f"ValueError: {err}", generic=True, exc=err, kind="python-exception")
    raise AssertionError("an empty sequence holds nothing")


def _is_index(x) -> bool:
    return isinstance(x, int) and not isinstance(x, torch.SymInt)


# sequence methods that read only: folded on real constants
_SEQUENCE_READERS = frozenset({"index", "count", "copy", "__len__", "__contains__", "__getitem__", "__add__",
                               "__mul__", "__rmul__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                               "__reversed__", "__iter__", "numel"})
_DICT_READERS = frozenset({"get", "copy", "__len__", "__contains__", "__getitem__", "__or__", "__eq__", "__ne__",
                           "fromkeys"})


def _const(v: Value) -> Any:
    if not v.is_constant():
        raise Unsupported(f"{v.describe()} where a constant is needed", kind="unsupported-operation")
    return v.as_python_constant()


def _python(fn, *args):
    """Run a list operation on the list of values; its IndexError/TypeError is Python's own."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - raised natively after the break
        raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")


def sorted_values(tx, items: list[Value], key: Value | None, reverse: Value | None) -> list[Value]:
    """``sorted(items, key=key, reverse=reverse)`` on values."""
    return sort_by(tx, items, sort_keys(tx, items, key), reverse)


def sort_keys(tx, items: list[Value], key: Value | None) -> list[Value]:
    """``key`` called once per item, in order, as Python calls it (the items when no key)."""
    if key is not None and not (key.is_constant() and key.as_python_constant() is None):
        return [tx.call(key, [item], {}) for item in items]
    return list(items)


def sort_by(tx, items: list[Value], keys: list[Value], reverse: Value | None) -> list[Value]:
    """``items`` ordered by ``keys`` with the real ``sorted``: by the constant keys when they are
    constants, else with each ``<`` asked of the capture (a user ``__lt__``, ``cmp_to_key``:
    families/sorting.py), so ties, ``reverse`` and the comparisons made are Python's."""
    if reverse is not None and not reverse.is_constant():
        raise Unsupported("sorting with a `reverse` that is not a constant", kind="unsupported-operation")
    rev = bool(reverse.as_python_constant()) if reverse is not None else False
    from autograph.capture.families.builtins import _has_symbolic
    if all(k.is_constant() for k in keys) and not _has_symbolic(keys, {}):
        real = [k.as_python_constant() for k in keys]
        order = _python(lambda: sorted(range(len(items)), key=real.__getitem__, reverse=rev))
    else:
        if any(k.is_tensor() for k in keys):
            raise Unsupported("sorting by tensors (the order is known only at run time)",
                              kind="unsupported-operation")
        from autograph.capture.families.sorting import order as interpreted_order
        order = interpreted_order(tx, keys, rev)
    return [items[i] for i in order]


class TupleValue(BaseSequenceValue):
    kind = tuple


class SizeValue(TupleValue):
    """``torch.Size`` with constant (static) sizes."""

    @property
    def kind(self):  # type: ignore[override]
        import torch
        return torch.Size

    def getattr(self, tx, name):
        if name == "numel":  # a bound builtin method, as Python's (called: call_method below)
            from autograph.capture.families.builtins import BuiltinMethodValue
            return BuiltinMethodValue(self, name)
        return super().getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "numel" and not args and not kwargs:
            import math
            return ConstantValue(math.prod(self.as_python_constant()))  # (symbolic sizes: a SymInt)
        return super().call_method(tx, name, args, kwargs)

    def describe(self) -> str:
        return "torch.Size"


class ListValue(BaseSequenceValue):
    kind = list
    mutable = True

    def _check_mutable(self):
        """A list read from outside without a source (a trusted read) cannot be changed for real."""
        if self.source is None and self.identity is not None:
            raise Unsupported("mutation of a list that came from outside (read from outside) — a side effect",
                              kind="side-effect")

    def _changed(self, tx, method: str, *args: Value) -> None:
        """This list changed by ``list.<method>(self, *args)``: a list from outside changes for real
        after the graph, in order with the other side effects (the arguments say exactly what
        changed — an index, the items already consumed — so nothing user-defined runs again)."""
        if self.source is not None:
            _record_outside_change(tx, self, getattr(list, method), list(args))

    def call_method(self, tx, name, args, kwargs):
        if name in ("append", "extend", "insert", "pop", "clear", "reverse", "remove") and not kwargs:
            self._check_mutable()
            items = self.items
            if name == "append" and len(args) == 1:
                items.append(args[0])
                self._changed(tx, "append", args[0])
            elif name == "extend" and len(args) == 1:
                added = _extend(tx, items, args[0])
                self._changed(tx, "extend", TupleValue(added))
            elif name == "insert" and len(args) == 2:
                _python(items.insert, _const(args[0]), args[1])
                self._changed(tx, "insert", *args)
            elif name == "pop" and len(args) <= 1:
                out = _python(items.pop, *(_const(a) for a in args))
                self._changed(tx, "pop", *args)
                return out
            elif name in ("clear", "reverse") and not args:
                getattr(items, name)()
                self._changed(tx, name)
            elif name == "remove" and len(args) == 1:
                for i, item in enumerate(items):
                    if equal_or_identical(tx, item, args[0]):
                        del items[i]
                        self._changed(tx, "__delitem__", ConstantValue(i))
                        break
                else:
                    raise _not_found(list, "remove", args[0])
            else:
                raise _argument_error(list, name, args, kwargs) or \
                    Unsupported(f"list.{name}() with these arguments", kind="unsupported-operation")
            return ConstantValue(None)
        if name == "sort" and not args and set(kwargs) <= {"key", "reverse"}:
            self._check_mutable()
            self._sort(tx, kwargs.get("key"), kwargs.get("reverse"))
            return ConstantValue(None)
        if name == "copy" and not args:
            return ListValue(list(self.items))
        return super().call_method(tx, name, args, kwargs)

    def _sort(self, tx, key: Value | None, reverse: Value | None) -> None:
        """``list.sort`` as CPython runs it: the list is empty while keys are made and compared (a
        key function sees ``len(p) == 0``); items added meanwhile are dropped and ValueError raised
        after the sorted items are put back; a key function's exception leaves the list as it was.
        An exception from a comparison leaves it partly sorted in Python: that breaks instead."""
        saved, self.items = self.items, []
        try:
            keys = sort_keys(tx, saved, key)
            try:
                ordered = sort_by(tx, saved, keys, reverse)
            except Unsupported as exc:
                if exc.generic:
                    raise Unsupported(f"list.sort() whose comparisons raised ({exc.reason})",
                                      kind="unsupported-operation") from exc
                raise
        except Unsupported:
            if self.items and self.source is not None:
                raise Unsupported(f"a list from outside ({self.source.expr}) changed while it was sorted",
                                  kind="side-effect") from None
            self.items = saved  # (items added meanwhile are dropped, as CPython drops them)
            raise
        modified, self.items = bool(self.items), saved
        if modified and self.source is not None:  # the replayed changes would show in between
            raise Unsupported(f"a list from outside ({self.source.expr}) changed while it was sorted",
                              kind="side-effect")
        saved[:] = ordered
        self._changed(tx, "__setitem__", ConstantValue(slice(None)), TupleValue(ordered))
        if modified:
            err = ValueError("list modified during sort")
            raise Unsupported(f"ValueError: {err}", generic=True, exc=err, kind="python-exception")

    def setitem(self, tx, key, value):
        self._check_mutable()
        k = key.as_python_constant()
        if isinstance(k, slice):
            from autograph.capture.families.iterators import iterator_of
            _refuse_non_iterable_slice_value(len(self.items), k, value)
            new = iterator_of(tx, value).iter_items(tx)
            _python(self.items.__setitem__, k, new)
            self._changed(tx, "__setitem__", key, TupleValue(new))
        else:
            _python(self.items.__setitem__, k, value)
            self._changed(tx, "__setitem__", key, value)

    def delitem(self, tx, key):
        self._check_mutable()
        _python(self.items.__delitem__, key.as_python_constant())
        self._changed(tx, "__delitem__", key)

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        if self.identity is not None:  # a real object read from outside (pinned): that object
            return cg.const(self.identity)
        in_two_steps = cycles.rebuild_in_two_steps(
            cg, self, "[]", lambda name: f"{name}.extend([{', '.join(cg.reconstruct(i) for i in self.items)}])")
        if in_two_steps is not None:
            return in_two_steps
        return cg.shared(self, "[" + ", ".join(cg.reconstruct(i) for i in self.items) + "]")


class OutsideListValue(ListValue):
    """A list read from outside through a source, its items read only when the code reads them.

    Appending to a list from outside (a history of losses, ``meter.values.append(v)``) needs
    neither its length nor its items: until something reads them (``len``, iteration, an index,
    any other method) the appends are recorded and replayed after the graph, and nothing about the
    list is guarded but its type, so the next call, with one more item in it, runs the same entry.
    The first read guards the length and reads the items as any list from outside, followed by the
    values appended so far (the real list does not change during the capture: its changes are
    replayed after the graph)."""

    def __init__(self, tx, real: list, source):
        self._unread: tuple | None = (tx, real)
        self._appended: list[Value] = []
        super().__init__([], source)
        self.identity = real  # for `is` between containers from outside

    @property  # type: ignore[override]
    def items(self) -> list[Value]:
        if self._unread is not None:
            self._read()
        return self._items

    @items.setter
    def items(self, items: list[Value]) -> None:
        self._items = items

    def _read(self) -> None:
        from autograph.capture.families.builder import _wrap_items
        tx, real = self._unread
        self._unread = None
        tx.guards.length(self.source, real)
        self._items = _wrap_items(tx, real, self.source, enumerate(real)) + self._appended

    def describe(self) -> str:
        return "list" if self._unread is not None else super().describe()

    def _fresh(self, items: list[Value]) -> "BaseSequenceValue":
        return ListValue(items)

    def call_method(self, tx, name, args, kwargs):
        if self._unread is not None and name == "append" and len(args) == 1 and not kwargs:
            self._appended.append(args[0])
            self._changed(tx, "append", args[0])
            return ConstantValue(None)
        return super().call_method(tx, name, args, kwargs)


def _refuse_non_iterable_slice_value(size: int, key: slice, value: Value) -> None:
    """``lst[a:b] = 1``: Python's own TypeError, whose words depend on the slice and the Python
    version ("can only assign an iterable", "must assign iterable to extended slice"), taken
    from the same assignment run on a stand-in list of the same length."""
    if not value.is_constant() or value.mutable:
        return
    real = value.as_python_constant()
    try:
        iter(real)
    except TypeError:
        try:
            list(range(size))[key] = real
        except TypeError as err:
            raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception") from None


def _extend(tx, items: list[Value], iterable: Value) -> list[Value]:
    """``list.extend(iterable)`` as CPython runs it: a list or tuple is copied whole (so
    ``x.extend(x)`` doubles ``x``); any other iterable is consumed one item at a time, each
    appended before the next is made, so an iterable that reads the list (``y.extend(y[-1] + z
    for z in r)``) sees the items already added."""
    from autograph.capture.families.iterators import iterator_of
    start = len(items)
    if isinstance(iterable, BaseSequenceValue):
        items.extend(iterable.iter_items(tx))
        return items[start:]
    it = iterator_of(tx, iterable)
    while (item := it.next(tx)) is not None:
        items.append(item)
    return items[start:]


def _key_value(key: Any) -> Value:
    """The value of a dict key (constants are their own keys; tensors and identity-hashed
    objects are keyed by identity, as their ``__hash__``/``__eq__`` do)."""
    from autograph.capture.families.sets import value_of
    return value_of(key)


def _identity_key(key: Any) -> bool:
    from autograph.capture.families.sets import _Identity
    return isinstance(key, _Identity)


def _has_keys(value: Value) -> bool:
    """Whether ``dict.update`` reads ``value`` as a mapping (its type has ``keys``), not as pairs."""
    try:
        return hasattr(value.python_type(), "keys")
    except Unsupported:
        return True  # (as before: its own mapping_items decides)


def _namespace_source(source) -> bool:
    """A dict read as an object's ``__dict__`` or a function's globals: stores into it change
    attributes capture reads another way; those stay a break."""
    while source is not None:
        if isinstance(source, AttrSource) and source.attr in ("__dict__", "__globals__"):
            return True
        source = getattr(source, "base", None)
    return False


def _check_arity(kind: type, name: str, args: list, kwargs: dict) -> None:
    """The TypeError Python raises for a wrong number of arguments to ``kind.<name>`` (``d.get()``),
    read from the real method called on an empty dict with placeholder (hashable) arguments."""
    if kind not in (dict, collections.OrderedDict, collections.defaultdict):
        return
    try:
        getattr(kind(), name)(*([None] * len(args)), **dict.fromkeys(kwargs))
    except TypeError as exc:
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception") from None
    except Exception:  # noqa: BLE001 - the placeholder key missing (pop): the arity is right
        pass


_MISSING = object()  # an absent entry (dict lookups done once, as CPython does them)


class DictValue(Value):
    """A dict (insertion order kept) keyed by constants, or by identity for tensors and
    objects hashed by identity (``{param: state}``): insertion order does not depend on
    addresses, so such a dict iterates exactly as Python's."""

    mutable = True
    # the real object whose instance ``__dict__`` this dict from outside is (``obj.__dict__``):
    # a string-keyed store into it is an instance-dict store of that object (side_effects.py)
    namespace_of: Any = None

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
        return cycles.all_items(self, self.items.values(), lambda v: v.is_constant()) \
            and not self.has_identity_keys()

    def as_python_constant(self):
        return self.kind((k, v.as_python_constant()) for k, v in self.items.items())

    def truth(self, tx):
        self._check_fresh(tx)
        return bool(self.items)

    def length(self, tx):
        self._check_fresh(tx)
        return len(self.items)

    def iter_items(self, tx):
        self._check_fresh(tx)
        return [_key_value(k) for k in self.items]

    def _key(self, key: Value, tx=None):
        """The model's key for ``key``: a constant itself; given the translator, an object whose
        hash is Python code (or a tuple of non-constants) by its interpreted key."""
        if key.is_constant():
            k = key.as_python_constant()
            if type(k).__name__ not in ("SymInt", "SymFloat", "SymBool"):  # (a symbolic size: retried static)
                _python(hash, k)  # an unhashable key: Python's TypeError
            return k
        from autograph.capture.families.sets import key_of
        try:
            return key_of(key, tx)  # a tensor or an identity-hashed object: keyed by identity
        except Unsupported as exc:
            if exc.kind == "python-exception":
                raise  # Python's own error (unhashable type, a raising __hash__)
            raise Unsupported(f"dict key {key.describe()} is not a constant", kind="unsupported-operation") from None

    def getitem(self, tx, key):
        self._check_fresh(tx)
        k = self._key(key, tx)
        found = self.items.get(k, _MISSING)  # one lookup: a key's == may be user code
        if found is _MISSING:
            raise self._key_error(k)
        return found

    def _key_error(self, k: Any) -> Unsupported:
        """The KeyError Python raises for a missing key. Known exactly (an ``except KeyError`` of
        the function runs during capture) when the key is a constant and the dict type has no
        ``__missing__`` (which Python would call instead)."""
        exc = None
        if getattr(self.kind, "__missing__", None) is None and type(k) in (str, int, float, bool, bytes, type(None)):
            exc = KeyError(k)
        return Unsupported(f"KeyError: {k!r}", generic=True, exc=exc, kind="python-exception")

    def _check_fresh(self, tx) -> None:
        """An object's (or module's) ``__dict__`` read from outside: the attribute stores this
        call made on that object so far (replayed after the graph) are in it now, as they would
        be in Python (a plain store lands in the instance dict: a new name at the end, a present
        one in its place)."""
        if self.source is None or self.identity is None or not _namespace_source(self.source):
            return
        from autograph.capture.families.side_effects import DELETED, stores_into
        for name, value in stores_into(tx, self.identity, self.source):
            if value is DELETED:
                self.items.pop(name, None)
            else:
                self.items[name] = value

    def _check_mutable(self):
        """A change capture does not replay (``clear``, ``popitem``) on a dict from outside breaks."""
        if self.source is not None or self.identity is not None:
            where = self.source.expr if self.source is not None else "read from outside"
            raise Unsupported(f"mutation of a dict that came from outside ({where}) — a side effect",
                              kind="side-effect")

    def _mutating(self, tx, method: str, args: list[Value], kwargs: dict | None = None) -> None:
        """A dict from outside changes for real after the graph (``dict.<method>(d, *args)`` replayed
        in order with the other side effects); this value, which later reads see, changes now."""
        if self.namespace_of is not None:
            _record_namespace_stores(tx, self, method, args, kwargs or {})
            return
        self._refuse_change()
        if self.source is not None:
            _record_outside_change(tx, self, getattr(dict, method), args, kwargs)

    def _refuse_change(self) -> None:
        """A change capture cannot replay (a dict read from outside without a source, a namespace,
        another mapping type from outside) breaks."""
        if self.source is None and self.identity is not None:  # read from outside, no source to replay on
            raise Unsupported("mutation of a dict that came from outside (read from outside) — a side effect",
                              kind="side-effect")
        if self.source is not None and (self.kind is not dict or _namespace_source(self.source)):
            raise Unsupported(f"mutation of a {self.kind.__name__} that came from outside "
                              f"({self.source.expr}) — a side effect", kind="side-effect")

    def _refuse_replayed_keys(self, keys) -> None:
        """A change to a dict from outside is replayed after the graph, which hashes its keys
        again: a key whose ``__hash__`` has effects breaks where it was hashed."""
        if self.source is not None and self.namespace_of is None:
            from autograph.capture.families.interpreted_keys import refuse_rebuild
            refuse_rebuild(keys, "a change to a dict from outside with the key")

    def _pop_entry(self, tx, k: Any, key: Value) -> Any:
        """Remove ``k``'s entry and return its value (``_MISSING`` when absent) in one lookup, as
        CPython's ``pop``/``del`` (a key's == may be user code: looking twice would run it twice)."""
        self._refuse_change()
        self._refuse_replayed_keys([k])
        before = len(self.items)
        found = self.items.pop(k, _MISSING)
        if len(self.items) != before:
            self._mutating(tx, "__delitem__", [key])
        return found

    def setitem(self, tx, key, value):
        k = self._key(key, tx)
        self._refuse_replayed_keys([k])
        self._mutating(tx, "__setitem__", [key, value])
        self.items[k] = value

    def delitem(self, tx, key):
        k = self._key(key, tx)
        if self._pop_entry(tx, k, key) is _MISSING:
            raise self._key_error(k)

    def contains(self, tx, item):
        self._check_fresh(tx)
        return ConstantValue(self._key(item, tx) in self.items)

    def getattr(self, tx, name):
        from autograph.capture.families.builtins import BuiltinMethodValue
        data = plain_class_attribute(tx, self, name)  # `d.__class__`: data, not a method
        if data is not None:
            return data
        if hasattr(self.kind, name):
            return BuiltinMethodValue(self, name)
        if self.kind.__dictoffset__ == 0 and not hasattr(self.kind, "__getattr__"):  # no instance attributes
            exc = AttributeError(f"{self.kind.__name__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        return super().getattr(tx, name)

    def get_iter(self, tx):
        self._check_fresh(tx)
        return SeqIteratorValue(self)

    def binary_op(self, tx, op, other):
        from autograph.capture.families.dict_operators import dict_binary_op
        return dict_binary_op(tx, self, op, other)

    def compare_op(self, tx, op, other):
        from autograph.capture.families.dict_operators import dict_compare
        return dict_compare(tx, self, op, other)

    def call_method(self, tx, name, args, kwargs):
        self._check_fresh(tx)
        if name in _VIEW_KINDS and not args and not kwargs:
            return DictViewValue(self, name)  # live: reads the dict when used
        if name in ("get", "pop", "setdefault"):
            _check_arity(self.kind, name, args, kwargs)
        if name == "get" and not kwargs:
            found = self.items.get(self._key(args[0], tx), _MISSING)
            if found is not _MISSING:
                return found
            return args[1] if len(args) > 1 else ConstantValue(None)
        if name == "update" and len(args) <= 1:
            self._mutating(tx, "update", args, kwargs)
            if args:
                other = args[0]
                if isinstance(other, DictValue):
                    self._refuse_replayed_keys(other.items)
                    self.items.update(other.items)
                elif hasattr(other, "mapping_items") and _has_keys(other):  # a mapping: its keys and m[k]
                    for k, v in other.mapping_items(tx):
                        key = self._key(k, tx)
                        self._refuse_replayed_keys([key])
                        self.items[key] = v
                else:  # pairs, each stored before the next is made (the iterable may read the dict)
                    from autograph.capture.families.iterators import iterator_of
                    it = iterator_of(tx, other)
                    index = 0
                    while (pair := it.next(tx)) is not None:
                        kv = pair.iter_items(tx)
                        if len(kv) != 2:
                            exc = ValueError(f"dictionary update sequence element #{index} has length "
                                             f"{len(kv)}; 2 is required")
                            raise Unsupported(f"ValueError: {exc}", generic=True, exc=exc, kind="python-exception")
                        key = self._key(kv[0], tx)
                        self._refuse_replayed_keys([key])
                        self.items[key] = kv[1]
                        index += 1
            for k, v in kwargs.items():
                self.items[k] = v
            return ConstantValue(None)
        if name == "pop" and not kwargs:
            k = self._key(args[0], tx)
            if not getattr(k, "interprets", False) and k not in self.items:
                found = _MISSING  # (no change: a dict capture cannot change may still answer)
            else:
                found = self._pop_entry(tx, k, args[0])
            if found is not _MISSING:
                return found
            if len(args) > 1:
                return args[1]
            raise self._key_error(k)
        if name == "setdefault":
            k = self._key(args[0], tx)
            self._refuse_replayed_keys([k])
            value = args[1] if len(args) > 1 else ConstantValue(None)
            if not getattr(k, "interprets", False):
                if k not in self.items:
                    self._mutating(tx, "__setitem__", [args[0], value])
                    self.items[k] = value
                return self.items[k]
            self._refuse_change()
            before = len(self.items)
            out = self.items.setdefault(k, value)  # one lookup, as CPython's
            if len(self.items) != before:
                self._mutating(tx, "__setitem__", [args[0], value])
            return out
        if name == "copy" and not args:
            return DictValue(self.items, kind=self.kind)
        if name == "clear" and not args:
            self._check_mutable()
            self.items.clear()
            return ConstantValue(None)
        if name == "popitem" and not args and self.kind is dict:
            self._check_mutable()
            if not self.items:
                err = KeyError("popitem(): dictionary is empty")
                raise Unsupported(f"KeyError: {err}", generic=True, exc=err, kind="python-exception")
            key = next(reversed(self.items))
            return TupleValue([_key_value(key), self.items.pop(key)])
        if name in _DICT_READERS and self.is_constant() and all(a.is_constant() for a in args) \
                and all(v.is_constant() for v in kwargs.values()):
            from autograph.capture.families.builtins import fold
            return fold(tx, getattr(self.as_python_constant(), name), args, kwargs, f"dict.{name}")
        from autograph.capture.families.dict_operators import dict_special_method
        out = dict_special_method(tx, self, name, args, kwargs)
        if out is not NotImplemented:
            return out
        raise Unsupported(f"dict.{name}() on {self.describe()}", kind="unsupported-operation")

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        if self.identity is not None:  # a real object read from outside (pinned): that object
            return cg.const(self.identity)
        def body() -> str:
            return ", ".join(f"{_key_expr(cg, k)}: {cg.reconstruct(v)}" for k, v in self.items.items())
        from autograph.capture.families.interpreted_keys import refuse_rebuild
        refuse_rebuild(self.items)
        empty = "{}" if self.kind is dict else f"{cg.const(self.kind)}()"
        in_two_steps = cycles.rebuild_in_two_steps(cg, self, empty, lambda name: f"{name}.update({{{body()}}})")
        if in_two_steps is not None:
            return in_two_steps
        text = "{" + body() + "}"
        if self.kind is not dict:
            text = f"{cg.const(self.kind)}({text})"
        return cg.shared(self, text)


# [[real container, value, mutated]] of the dicts and lists this capture read from outside
OUTSIDE_CONTAINERS = state_slot("outside_containers", list, __name__)


def _outside_containers(tx) -> list:
    """``[(real container, value, mutated)]`` of the dicts and lists this capture read from outside."""
    return OUTSIDE_CONTAINERS.of(tx)


def _record_namespace_stores(tx, namespace: DictValue, method: str, args: list[Value], kwargs: dict) -> None:
    """``obj.__dict__[name] = v`` and ``obj.__dict__.update(...)`` with string keys: instance-dict
    stores of ``obj``, replayed in order after the graph; later attribute reads of ``obj`` see them
    (families/side_effects.py). Other changes of a namespace (deletions, non-string keys) break."""
    from autograph.capture.families import side_effects
    pairs: list[tuple[Any, Value]] | None = None
    if method == "__setitem__" and args[0].is_constant():
        pairs = [(args[0].as_python_constant(), args[1])]
    elif method == "update" and (not args or isinstance(args[0], DictValue)):
        pairs = [*(args[0].items.items() if args else ()), *kwargs.items()]
    if pairs is None or any(type(name) is not str or _module_state(namespace.namespace_of, name) for name, _ in pairs):
        raise Unsupported(f"mutation of a dict that came from outside ({namespace.source.expr}) — a side effect",
                          kind="side-effect")
    _mark_changed(tx, namespace)
    for name, value in pairs:
        side_effects.record_dict_store(tx, namespace, namespace.namespace_of, name, value)


def _module_state(obj: Any, name: str) -> bool:
    """A name ``nn.Module.__init__`` puts in every module's instance dict (``_parameters``,
    ``_modules``, ``training``, the hook tables...): module state capture reads another way."""
    if not isinstance(obj, torch.nn.Module):
        return False
    global _MODULE_STATE_NAMES
    if _MODULE_STATE_NAMES is None:
        _MODULE_STATE_NAMES = frozenset(torch.nn.Module().__dict__)
    return name in _MODULE_STATE_NAMES


_MODULE_STATE_NAMES: frozenset | None = None


def _record_outside_change(tx, value: Value, method: Any, args: list[Value], kwargs: dict | None = None) -> None:
    """``method(real, *args)`` replayed after the graph, in order with the other side effects, on the
    container from outside that ``value`` stands for (changed now, so later reads see the change)."""
    _mark_changed(tx, value)
    from autograph.capture.families import side_effects
    side_effects.record_call(tx, method, [value, *args], dict(kwargs or {}))


def _mark_changed(tx, value: Value) -> None:
    """Once a container from outside is changed, every other container read from outside is
    guarded to be another object: the change must not reach one the capture reads as unchanged."""
    for entry in _outside_containers(tx):
        if entry[1] is value and not entry[2]:
            entry[2] = True
            for _, other, _ in _outside_containers(tx):
                if other is not value:
                    _distinct_guard(tx, value, other)
            if isinstance(value, ListValue):  # iterators from outside read the real list
                from autograph.capture.families.live_iterators import keep_apart_from_iterators
                keep_apart_from_iterators(tx, value)


def changed_outside_lists(tx) -> list[Value]:
    """The lists from outside this capture has changed so far."""
    return [value for _, value, changed in _outside_containers(tx) if changed and isinstance(value, ListValue)]


def _distinct_guard(tx, a: Value, b: Value) -> None:
    tx.guards.distinct(a.source, b.source)


def outside_container(tx, obj: Any, source) -> Value | None:
    """The value of ``obj`` if this capture read it already (through ``source`` or another one:
    then guarded to be the same object again)."""
    if source is None:
        return None
    for real, value, _ in _outside_containers(tx):
        if real is obj:
            if value.source != source:
                tx.guards.same_object(value.source, source)
            return value
    return None


def register_outside_container(tx, obj: Any, value: Value) -> Any:
    if value.source is not None:
        table = _outside_containers(tx)
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
    from autograph.capture.families.dict_subclass_objects import DictSubclassObjectValue
    from autograph.capture.families.mapping_proxies import ClassNamespaceValue
    if isinstance(mapping, (DictSubclassObjectValue, ClassNamespaceValue)):  # (read as PyDict_Merge reads it)
        return mapping.mapping_items(tx)
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

    def __init__(self, mapping: DictValue, kind: str, *, owner: Value | None = None, method=None):
        self.mapping = mapping
        self.kind = kind  # "keys" | "values" | "items"
        # the object whose view this is when ``mapping`` only models its contents (a dict
        # subclass or OrderedDict made during capture), and the C method that made the view
        # (``dict.keys``, ``OrderedDict.items``): rebuilt as ``method(owner)``, a view of the
        # rebuilt object itself, so it stays live and of the same type
        self.owner = owner
        self.method = method

    def describe(self):
        return f"dict_{self.kind}"

    def python_type(self):
        if self.method is not None:
            return type(self.method(self.method.__objclass__()))
        return type(getattr(self.mapping.kind(), self.kind)())

    def _current(self) -> list[Value]:
        items = self.mapping.items
        if self.kind == "keys":
            return [_key_value(k) for k in items]
        if self.kind == "values":
            return list(items.values())
        return [TupleValue([_key_value(k), v]) for k, v in items.items()]

    def iter_items(self, tx):
        self.mapping._check_fresh(tx)
        return self._current()

    def length(self, tx):
        self.mapping._check_fresh(tx)
        return len(self.mapping.items)

    def truth(self, tx):
        self.mapping._check_fresh(tx)
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

    def get_iter(self, tx):
        self.mapping._check_fresh(tx)
        return SeqIteratorValue(self)  # live: a size change while looping raises, as in Python

    def compare_op(self, tx, op, other):
        from autograph.capture.families.dict_operators import view_compare
        return view_compare(tx, self, op, other)

    def contains(self, tx, item):
        self.mapping._check_fresh(tx)
        if self.kind == "keys":
            return self.mapping.contains(tx, item)
        if self.kind == "items" and isinstance(item, TupleValue) and len(item.items) == 2 \
                and item.items[0].is_constant():  # dict_items looks the key up, then compares values
            key = item.items[0].as_python_constant()
            if key not in self.mapping.items:
                return ConstantValue(False)
            return ConstantValue(equal_or_identical(tx, self.mapping.items[key], item.items[1]))
        return super().contains(tx, item)

    def getattr(self, tx, name):
        from autograph.capture.families.builtins import BuiltinMethodValue
        if name == "mapping":  # a read-only live proxy of the dict the view belongs to
            from autograph.capture.families.mapping_proxies import MappingProxyValue
            return MappingProxyValue(self.owner if self.owner is not None else self.mapping)
        if self.is_constant() and callable(getattr(self.python_type(), name, None)):
            return BuiltinMethodValue(self, name)
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        if self.owner is not None:
            return f"{cg.const(self.method)}({cg.reconstruct(self.owner)})"
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
    """An iterator with its items fixed when it was made (``iter()`` of a value capture has no live
    model for: a module list, an immutable constant). Subclasses advance live."""

    mutable = True

    def __init__(self, items: list[Value], kind: str = "iterator", cls: type | None = None):
        self.items = list(items)
        self.index = 0
        self.kind = kind
        self.cls = cls

    def describe(self):
        return self.kind

    def python_type(self):
        return self.cls or type(iter(()))

    def get_iter(self, tx) -> "ListIteratorValue":
        return self  # iter(it) is it

    def call_method(self, tx, name, args, kwargs):
        """``it.__iter__()`` and ``it.__next__()`` called by name: ``iter(it)`` and ``next(it)``."""
        if name == "__iter__" and not args and not kwargs:
            return self.get_iter(tx)
        if name == "__next__" and not args and not kwargs:
            item = self.next(tx)
            if item is None:
                raise Unsupported("StopIteration", generic=True, exc=StopIteration(), kind="python-exception")
            return item
        return super().call_method(tx, name, args, kwargs)

    def next(self, tx) -> Value | None:
        if self.index >= len(self.items):
            return None
        item = self.items[self.index]
        self.index += 1
        return item

    def iter_items(self, tx):
        """Drain the iterator (``list(it)``): every item still to come, consuming them."""
        out = []
        while (item := self.next(tx)) is not None:
            out.append(item)
        return out

    def length(self, tx):
        raise Unsupported(f"TypeError: object of type '{self.python_type().__name__}' has no len()",
                          generic=True, kind="python-exception")

    def truth(self, tx):
        return True  # iterators have no __bool__/__len__

    def contains(self, tx, item):
        """``x in it`` consumes the iterator up to the first match, as Python does."""
        while (candidate := self.next(tx)) is not None:
            if equal_or_identical(tx, candidate, item):
                return ConstantValue(True)
        return ConstantValue(False)

    def reconstruct(self, cg):
        rest = self.items[self.index:]
        return cg.shared(self, "iter((" + "".join(cg.reconstruct(i) + ", " for i in rest) + "))")


# ---------------------------------------------------------------------------
# live iterators over containers of the call, and dict views

def _iter_at(seq, index: int):
    """Used by the transformed code: ``iter(seq)`` advanced to ``index`` (a list/tuple iterator)."""
    it = iter(seq)
    if index:
        it.__setstate__(index)
    return it


def _reversed_at(seq, index: int):
    """``reversed(seq)`` whose next item is ``seq[index]``."""
    it = reversed(seq)
    it.__setstate__(index)
    return it


def _advanced(iterable, count: int):
    """``iter(iterable)`` after ``count`` items (dict and set iterators have no ``__setstate__``)."""
    it = iter(iterable)
    for _ in range(count):
        next(it)
    return it


def _exhausted(kind: type):
    """An exhausted iterator of the given type: it yields nothing more, whatever happens to the
    container it came from (Python drops the container when an iterator is exhausted)."""
    for make in (lambda: iter([]), lambda: iter(()), lambda: reversed([]), lambda: reversed(()),
                 lambda: iter({}), lambda: iter({}.values()), lambda: iter({}.items()), lambda: reversed({}),
                 lambda: reversed({}.values()), lambda: reversed({}.items()), lambda: iter(set())):
        it = make()
        if type(it) is kind:
            next(it, None)
            return it
    return iter(())


_VIEW_KINDS = ("keys", "values", "items")


class SeqIteratorValue(ListIteratorValue):
    """``iter(c)``/``reversed(c)`` of a list, tuple, dict, dict view or set of the call, advanced
    live as Python does: items appended to a list while looping over it are reached, a dict or
    set changing size raises (natively, after a break), an exhausted iterator stays exhausted."""

    def __init__(self, seq: Value, *, reverse: bool = False):
        super().__init__([], kind="iterator")
        self.seq = seq
        self.reverse = reverse
        self.done = False
        self.view = "keys"
        target = seq
        if isinstance(seq, DictViewValue):
            self.view, target = seq.kind, seq.mapping
        self.target = target
        if self._keyed():
            self.keys0 = self._keys()
            self.index = 0
        else:
            self.index = len(target.items) - 1 if reverse else 0

    def _keyed(self) -> bool:
        return not isinstance(self.target, BaseSequenceValue)

    def _keys(self) -> list:
        t = self.target
        keys = list(t.items) if isinstance(t, DictValue) else list(t.real)  # a dict, or a SetValue
        return keys[::-1] if self.reverse else keys

    def describe(self):
        return f"iterator over {self.seq.describe()}"

    def call_method(self, tx, name, args, kwargs):
        if name == "__length_hint__" and not args and not kwargs:
            return ConstantValue(self._length_hint())
        return super().call_method(tx, name, args, kwargs)

    def _length_hint(self) -> int:
        """``it.__length_hint__()`` as CPython's list/tuple/dict/set iterators answer it: the items
        still to come; 0 once exhausted, or for a dict or set whose size changed since."""
        if self.done:
            return 0
        if self._keyed():
            return len(self.keys0) - self.index if len(self._keys()) == len(self.keys0) else 0
        size = len(self.target.items)
        if self.reverse:
            return self.index + 1 if size >= self.index + 1 else 0
        return max(size - self.index, 0)

    def python_type(self):
        t = self.target
        if isinstance(t, BaseSequenceValue):
            sample = list(range(0)) if t.kind is list else ()
        elif isinstance(t, DictValue):
            sample = getattr({}, self.view)()
        else:
            sample = set()
        return type(reversed(sample) if self.reverse else iter(sample))

    def next(self, tx):
        if self.done:
            return None
        if isinstance(self.target, DictValue):
            self.target._check_fresh(tx)
        if self._keyed():
            if self._keys() != self.keys0:
                what = "dictionary" if isinstance(self.target, DictValue) else "set"
                raise Unsupported(f"RuntimeError: {what} changed size or keys during iteration", generic=True,
                    kind="python-exception")
            if self.index >= len(self.keys0):
                self.done = True
                return None
            key = self.keys0[self.index]
            self.index += 1
            if not isinstance(self.target, DictValue):  # a set: its key stands for the item
                from autograph.capture.families.sets import value_of
                return value_of(key)
            if self.view == "keys":
                return _key_value(key)
            if self.view == "values":
                return self.target.items[key]
            return TupleValue([_key_value(key), self.target.items[key]])
        items = self.target.items
        if self.reverse:
            if 0 <= self.index < len(items):
                self.index -= 1
                return items[self.index + 1]
        elif self.index < len(items):
            self.index += 1
            return items[self.index - 1]
        self.done = True
        return None

    def reconstruct(self, cg):
        if self.done:
            return cg.shared(self, f"{cg.const(_exhausted)}({cg.const(self.python_type())})")
        if self._keyed():
            if self._keys() != self.keys0:  # a real iterator remembers the size it started with
                raise Unsupported("an iterator over a dict or set that changed during iteration is live "
                                  "at a graph break", kind="cannot-rebuild")
            if isinstance(self.target, DictValue) and any(
                    entry[1] is self.target and entry[2] for entry in _outside_containers(cg.tx)):
                # the dict's changes are replayed after the graph, but the entry rebuilds iterators
                # before that replay: this one would see the dict as it was (or raise) — run it in Python
                raise Unsupported("an iterator over a dict from outside that this call changes is live "
                                  "at a graph break", kind="cannot-rebuild")
            if not isinstance(self.target, DictValue) and list(frozenset(self.keys0)) != self.keys0:
                # a set is rebuilt from its keys: only an iterator whose order that rebuild keeps
                raise Unsupported("an iterator over a set is live at a graph break", kind="cannot-rebuild")
            iterable = cg.reconstruct(self.seq if isinstance(self.seq, DictViewValue) else self.target)
            if self.reverse:
                iterable = f"reversed({iterable})"
                return cg.shared(self, f"{cg.const(_advanced)}({iterable}, {self.index})")
            return cg.shared(self, f"{cg.const(_advanced)}({iterable}, {self.index})")
        fn = _reversed_at if self.reverse else _iter_at
        return cg.shared(self, f"{cg.const(fn)}({cg.reconstruct(self.target)}, {self.index})")
