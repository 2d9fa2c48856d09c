"""``copy.deepcopy`` of plain data during capture: a real copy only this capture holds.

Libraries copy configuration objects and then edit the copy (transformers' encoder-decoder
configs, for one: ``get_text_config`` deep-copies the config and renames keys on the copy).
The copy is made for real at capture time from the real original, which is guarded to keep
the exact state it had (types and values, all the way down: ``same_state``). Nothing outside
the capture can reach the copy, so operations on it are run for real: attribute and item
reads, stores and deletes, the methods of built-in containers, iteration (live, like Python's).
Python methods of copied objects are inlined as usual, with the copy as ``self``. Objects made
by those real operations from private ones (``d.items()``, ``d.copy()``) are private too.

A copy still in use at a graph break (or returned) is not rebuilt: the break moves to the
``deepcopy`` call, which then runs in Python.
"""
from __future__ import annotations

import copy
import enum
import types
from typing import Any

import torch

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import ListIteratorValue
from autograph.capture.families.objects import ObjectValue

LIVE_COPY = break_kind(
    "live-copy", "an object deep-copied during capture is still in use where the graph breaks or returns",
    "nothing: the copy is made in Python at that point")

_ATOMS = (type(None), bool, int, float, complex, str, bytes, torch.dtype, torch.device, range, type(Ellipsis))
_CONTAINERS = (list, tuple, dict, set, frozenset)
_MAX_OBJECTS = 4096


def _plain_class(cls: type) -> bool:
    """Instances copy as ``cls.__new__`` + a deep copy of ``__dict__`` (copy's default protocol)."""
    if cls.__module__ == "builtins":
        return False
    for name in ("__deepcopy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__", "__slots__"):
        for klass in cls.__mro__:
            if name in klass.__dict__:
                if klass is object:
                    break
                return False
    return True


def same_state(a: Any, b: Any, seen: dict | None = None) -> bool:
    """Exact structural equality: same types everywhere, equal atoms, same identity for
    anything else (functions, classes, modules) -- what a deep copy of ``a`` would reproduce."""
    seen = {} if seen is None else seen
    if type(a) is not type(b):
        return False
    if isinstance(a, _ATOMS) or isinstance(a, enum.Enum):
        return a == b
    key = (id(a), id(b))
    if key in seen:
        return True
    seen[key] = True
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_state(x, y, seen) for x, y in zip(a, b))
    if isinstance(a, (set, frozenset)):
        return a == b
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_state(a[k], b[k], seen) for k in a)
    if isinstance(getattr(a, "__dict__", None), dict) and _plain_class(type(a)):
        return same_state(a.__dict__, b.__dict__, seen)
    return a is b


def _copyable(obj: Any, seen: set, budget: list) -> bool:
    """Plain data all the way down (what ``same_state`` can guard)."""
    if isinstance(obj, _ATOMS) or isinstance(obj, enum.Enum):
        return True
    if id(obj) in seen:
        return True
    budget[0] -= 1
    if budget[0] < 0:
        return False
    seen.add(id(obj))
    if type(obj) in (list, tuple):
        return all(_copyable(x, seen, budget) for x in obj)
    if type(obj) in (set, frozenset):
        return all(isinstance(x, _ATOMS) for x in obj)
    if type(obj) is dict:
        return all(isinstance(k, _ATOMS) and _copyable(v, seen, budget) for k, v in obj.items())
    if isinstance(obj, (types.FunctionType, type, types.ModuleType, types.BuiltinFunctionType)):
        return True  # copied by reference; guarded by identity
    if isinstance(getattr(obj, "__dict__", None), dict) and _plain_class(type(obj)):
        return _copyable(obj.__dict__, seen, budget)
    return False


# id(obj) -> obj: the objects (and the containers inside them) only this capture can reach
PRIVATE_OBJECTS = registry.state_slot("private_objects", dict, __name__)


def _private(tx) -> dict:
    return PRIVATE_OBJECTS.of(tx)


def _adopt(tx, obj: Any) -> None:
    """``obj`` (and the containers and plain objects inside it) belong to this capture only."""
    objs = _private(tx)
    todo = [obj]
    while todo:
        o = todo.pop()
        if isinstance(o, _ATOMS) or id(o) in objs or isinstance(o, (types.FunctionType, type, types.ModuleType)):
            continue
        objs[id(o)] = o
        if type(o) in (list, tuple, set, frozenset):
            todo.extend(o)
        elif type(o) is dict:
            todo.extend(o.values())
        elif isinstance(getattr(o, "__dict__", None), dict) and _plain_class(type(o)):
            todo.append(o.__dict__)


def wrap_private(tx, obj: Any) -> Value:
    """The value of a real object read from a private one."""
    if id(obj) in _private(tx) and not isinstance(obj, _ATOMS):
        return PrivateValue(obj)
    return tx.wrap(obj, None, trusted=True)


def _real(tx, v: Value) -> Any:
    if isinstance(v, PrivateValue):
        return v.obj
    if v.is_constant():
        return v.as_python_constant()
    raise Unsupported(f"{v.describe()} used with an object deep-copied during capture", kind="live-copy")


def _run(tx, what: str, fn, *args) -> Any:
    """A real operation on private objects; its exception is Python's, raised where Python raises it."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - the operation's own error
        raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception") from None


def _result(tx, obj: Any, new: bool) -> Value:
    """Wrap what a real operation on a private object returned (``new``: it made a fresh object)."""
    if new and not isinstance(obj, _ATOMS):
        _adopt(tx, obj)
    return wrap_private(tx, obj)


def adopt_value(tx, obj: Any, value_cls: type | None = None) -> "PrivateValue":
    """The value (a ``value_cls``, by default :class:`PrivateValue`) of ``obj``, a real object
    another family made at capture time that only this capture holds (``random.Random(seed)``:
    families/random_draws.py)."""
    _adopt(tx, obj)
    return (value_cls or PrivateValue)(obj)


def real_argument(tx, value: Value) -> Any:
    """The real object a private operation is given: a constant or a private object."""
    return _real(tx, value)


def run_real(tx, what: str, fn) -> Any:
    """``fn()``, a real operation on private objects (its exception is Python's)."""
    return _run(tx, what, fn)


def result_value(tx, obj: Any) -> Value:
    """The value of what a real operation on private objects made (private unless an atom)."""
    return _result(tx, obj, new=True)


class PrivateValue(ObjectValue):
    """A real object only this capture holds (a deep copy made at capture time, or made from one)."""

    def describe(self):
        return f"deep copy of a {type(self.obj).__qualname__} object"

    # --- attributes ------------------------------------------------------------------
    def getattr(self, tx, name):
        obj, cls = self.obj, type(self.obj)
        if type(obj) in _CONTAINERS:
            if not hasattr(obj, name):
                exc = AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
                raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
            return _ContainerMethod(self, name)
        if name == "__dict__":
            return wrap_private(tx, obj.__dict__)
        if name == "__class__":
            return tx.wrap(cls, None, trusted=True)
        from autograph.capture.core.base import generic_getattribute, mro_lookup
        from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
        klass, attr = mro_lookup(cls, name)
        if isinstance(attr, types.FunctionType):
            tx.guards.class_attr(cls, name)
            return BoundMethodValue(UserFunctionValue(attr), self)
        if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
            tx.guards.class_attr(cls, name)
            return UserFunctionValue(attr.fget).call(tx, [self], {})
        if klass is not None and generic_getattribute(cls) and name not in getattr(obj, "__dict__", {name: None}):
            from autograph.capture.families.class_stores import resolved
            stored = resolved(tx, cls, name)
            if stored is not None:  # the class entry, stored earlier in this capture (the copy is private)
                return stored
        if klass is not None:
            tx.guards.class_attr(cls, name)  # a class attribute (or one the instance shadows)
        # the instance's own attributes, a Python __getattribute__ remapping names: run for real
        return _result(tx, _run(tx, f".{name}", getattr, obj, name), new=False)

    def setattr(self, tx, name, value):
        if type(self.obj) in _CONTAINERS:
            return super().setattr(tx, name, value)
        _run(tx, f".{name} =", setattr, self.obj, name, _real(tx, value))

    def delattr(self, tx, name):
        _run(tx, f"del .{name}", delattr, self.obj, name)

    # --- containers ------------------------------------------------------------------
    def getitem(self, tx, key):
        return _result(tx, _run(tx, "[]", lambda o, k: o[k], self.obj, _real(tx, key)), new=False)

    def setitem(self, tx, key, value):
        _run(tx, "[]=", lambda o, k, v: o.__setitem__(k, v), self.obj, _real(tx, key), _real(tx, value))

    def delitem(self, tx, key):
        _run(tx, "del []", lambda o, k: o.__delitem__(k), self.obj, _real(tx, key))

    def contains(self, tx, item):
        return ConstantValue(_run(tx, "in", lambda o, i: i in o, self.obj, _real(tx, item)))

    def length(self, tx):
        return _run(tx, "len", len, self.obj)

    def truth(self, tx):
        if type(self.obj) in _CONTAINERS:
            return bool(self.obj)
        return super().truth(tx)

    def iter_items(self, tx):
        if type(self.obj) not in _CONTAINERS and type(self.obj) not in _VIEWS:
            return super().iter_items(tx)
        return [_result(tx, x, new=False) for x in list(self.obj)]

    def get_iter(self, tx):
        if type(self.obj) not in _CONTAINERS and type(self.obj) not in _VIEWS:
            return super().get_iter(tx)
        return _LiveIterator(iter(self.obj))

    def reconstruct(self, cg):
        raise Unsupported(f"a {self.describe()} is live where the graph ends", kind=LIVE_COPY)


_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


class _ContainerMethod(Value):
    """``d.pop``, ``l.append``, ``d.items``… of a private container: run for real."""

    def __init__(self, owner: PrivateValue, name: str):
        self.owner, self.name = owner, name

    def describe(self):
        return f"method .{self.name} of a {self.owner.describe()}"

    def call(self, tx, args, kwargs):
        real_args = [_real(tx, a) for a in args]
        real_kwargs = {k: _real(tx, v) for k, v in kwargs.items()}
        method = getattr(self.owner.obj, self.name)
        return _result(tx, _run(tx, self.name, lambda: method(*real_args, **real_kwargs)), new=True)


class _LiveIterator(ListIteratorValue):
    """Iteration over a private container, one real ``next`` at a time (mutations show, as in Python)."""

    def __init__(self, it):
        super().__init__([])
        self.it = it

    def next(self, tx):
        try:
            item = next(self.it)
        except StopIteration:
            return None
        except Exception as exc:  # noqa: BLE001 - e.g. "dictionary changed size during iteration"
            raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception") from None
        return _result(tx, item, new=True)

    def iter_items(self, tx):
        out = []
        while (item := self.next(tx)) is not None:
            out.append(item)
        return out

    def reconstruct(self, cg):
        raise Unsupported("an iterator over a deep copy made during capture is live where the graph ends",
                          kind=LIVE_COPY)


def _deepcopy(tx, args, kwargs):
    if len(args) != 1 or kwargs:
        return NotImplemented
    value = args[0]
    if isinstance(value, PrivateValue):
        out = _result(tx, copy.deepcopy(value.obj), new=True)
        out.created_step = tx.step
        return out
    try:
        real = value.real_value()
    except Unsupported:
        return NotImplemented
    source = value.source
    if source is None or isinstance(real, _ATOMS) or not _copyable(real, set(), [_MAX_OBJECTS]):
        return NotImplemented
    pristine = copy.deepcopy(real)
    tx.guards.python("deepcopy-state", source, f"___same_state({source.expr}, <state when compiled>)",
                     lambda v: same_state(v, pristine), [source],
                     words=f"{source.expr}: same state as when compiled (deep-copied by the code)")
    out = _result(tx, copy.deepcopy(real), new=True)
    out.created_step = tx.step  # live at a break: the break moves here and the copy is made in Python
    return out


def install() -> None:
    registry.register_opaque_call(copy.deepcopy, _deepcopy)
