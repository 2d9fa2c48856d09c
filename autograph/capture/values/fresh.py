"""Objects a call makes anew: results of folded operations and C constructors.

Python makes a new object on every call for ``set()``, ``[...]``, ``object()``,
``ValueError("bad")``, ``"a,b".split(",")``. Capture runs such an operation once, on
real constants, and must not hand that one object to every later call. So a folded
result is turned into a value that is *rebuilt per call* at a graph break or return:

* lists, tuples, dicts: the container values of ``containers.py`` (rebuilt item by item);
* sets: ``SetValue`` (values/sets.py), rebuilt once per call;
* objects of a class whose construction runs no Python code (``object``, exceptions whose
  ``__new__``/``__init__`` are C): :class:`FreshObjectValue`, rebuilt by calling the class
  again with the same arguments; attribute stores are modelled and replayed on the new object;
* a list/dict/set of the call that the operation returns or puts in its result (``s |= t``
  returns ``s``; ``[[0] * 2] * 2`` holds one inner list twice): that same value
  (:class:`RealArguments` runs the operation on one real copy per value and maps back);
* anything else made at capture time: a graph break (the operation runs in Python).
"""
from __future__ import annotations

import types
from typing import Any

from autograph.capture.breaks import Unsupported, break_kind
from autograph.capture.values.base import Value, mro_lookup
from autograph.capture.values.registry import IMMUTABLE_VALUE_TYPES

FRESH_OBJECT = break_kind(
    "fresh-object",
    "an operation makes a new object of a type capture cannot rebuild on every call",
    "the operation runs in Python; move it out of the compiled function if it is hot")

# live exception state Python sets when raising: a sample made at capture time has none of it
_EXCEPTION_STATE = frozenset({"__traceback__", "__context__", "__cause__", "__suppress_context__"})


class RealArguments:
    """The real objects a folded operation runs on, made from argument values.

    Lists and dicts of the call are values holding values: each becomes one real copy (the same
    value twice is the same copy, so aliasing among the arguments holds). After the call the
    copies must be unchanged — an operation that mutates its argument cannot be folded on a
    copy — and a result that *is* (or holds) one of them maps back to its value, so the result
    aliases the call's own objects exactly as Python's would.
    """

    def __init__(self, values: list[Value]):
        self._real_of: dict[int, Any] = {}
        self._value_of: dict[int, Value] = {}  # id(real copy) -> the value it was made from
        self._objs: dict[int, Any] = {}  # id -> copy: kept alive while ids are compared
        self.values = [self._real(v) for v in values]
        self._before = {rid: _layout(obj) for rid, obj in self._objs.items()}

    def _real(self, v: Value) -> Any:
        from autograph.capture.values.containers import BaseSequenceValue, DictValue, ListValue
        key = id(v)
        if key in self._real_of:
            return self._real_of[key]
        if isinstance(v, ListValue):
            out: Any = []
            self._remember(v, out)
            out.extend(self._real(i) for i in v.items)
            return out
        if isinstance(v, DictValue):
            if v.has_identity_keys():  # keyed by tensors/objects of the graph: no real copy to run on
                raise Unsupported(f"a Python operation on {v.describe()}, a dict keyed by tensors or objects",
                                  kind="unsupported-operation")
            out = v.kind()
            self._remember(v, out)
            for k, i in v.items.items():
                out[k] = self._real(i)
            return out
        if isinstance(v, BaseSequenceValue):
            out = v.kind(self._real(i) for i in v.items)
            self._real_of[key] = out
            return out
        return v.as_python_constant()

    def _remember(self, v: Value, out: Any) -> None:
        self._real_of[id(v)] = out
        self._value_of[id(out)] = v
        self._objs[id(out)] = out

    def check_unchanged(self, name: str) -> None:
        for rid, before in self._before.items():
            value = self._value_of[rid]
            if _layout(self._objs[rid]) != before:
                raise Unsupported(f"{name}() changes its argument {value.describe()}", kind="side-effect")

    def wrap_result(self, tx, result: Any, name: str) -> Value:
        return fresh_value(tx, result, name, self._value_of, {})


def _layout(obj: Any) -> Any:
    """What an in-place change would alter: the identities of a container's elements."""
    if isinstance(obj, dict):
        return tuple((k, id(v)) for k, v in obj.items())
    if isinstance(obj, set):
        return frozenset(obj)
    return tuple(id(x) for x in obj)


def fresh_value(tx, obj: Any, name: str, known: dict | None = None, made: dict | None = None) -> Value:
    """A value rebuilt per call for an object made at capture time. ``known`` maps real copies
    of the call's values back to them; ``made`` keeps one value per new object (aliasing)."""
    from autograph.capture.values.containers import DictValue, ListValue, TupleValue
    from autograph.capture.values.objects import ObjectValue
    known = {} if known is None else known
    made = {} if made is None else made
    if id(obj) in known:
        return known[id(obj)]
    if id(obj) in made:
        return made[id(obj)][0]
    cls = type(obj)
    if cls is list:
        value: Value = ListValue([])
        made[id(obj)] = (value, obj)
        value.items.extend(fresh_value(tx, x, name, known, made) for x in obj)
        return value
    if cls is dict:
        value = DictValue({})
        made[id(obj)] = (value, obj)
        value.items.update({k: fresh_value(tx, v, name, known, made) for k, v in obj.items()})
        return value
    if cls is tuple:
        return TupleValue([fresh_value(tx, x, name, known, made) for x in obj])
    value = tx.wrap(obj, None, trusted=True)
    if type(value) is ObjectValue and cls not in IMMUTABLE_VALUE_TYPES:
        raise Unsupported(f"{name}() made a {cls.__qualname__} object; Python makes a new one on every call",
                          kind=FRESH_OBJECT)
    return value


def constructs_in_c(cls: type) -> bool:
    """Whether ``cls(...)`` runs no Python code (no Python ``__new__``/``__init__``/metaclass call)."""
    if type(cls) is not type:
        return False
    return not any(isinstance(mro_lookup(cls, name)[1], (types.FunctionType, staticmethod, classmethod))
                   for name in ("__new__", "__init__"))


def _make(cls: type, args: tuple, kwargs: dict, attrs: dict) -> Any:
    """Used by the transformed code: the object made again, with the attributes the call set."""
    obj = cls(*args, **kwargs)
    for name, value in attrs.items():
        setattr(obj, name, value)
    return obj


class FreshObjectValue(Value):
    """``cls(*args, **kwargs)`` made in the call, ``cls`` constructing in C (``object()``, an exception).

    ``sample`` is one such object made at capture time: it answers type, ``args`` and ``str()``
    questions and lets a user ``except`` run symbolically; the transformed code makes the real
    one anew on every call.
    """

    mutable = True

    def __init__(self, cls: type, args: list[Value], kwargs: dict[str, Value], sample: Any):
        self.cls = cls
        self.args = list(args)
        self.kwargs = dict(kwargs)
        self.sample = sample
        self.attrs: dict[str, Value] = {}  # attributes stored during the call, in order

    def describe(self):
        return f"{self.cls.__qualname__} object (made during the call)"

    def python_type(self):
        return self.cls

    def real_value(self):
        return self.sample

    def getattr(self, tx, name):
        if name in self.attrs:
            return self.attrs[name]
        if name == "with_traceback" and isinstance(self.sample, BaseException):
            from autograph.capture.values.with_exits import WithTracebackMethod
            return WithTracebackMethod(self)
        if name in _EXCEPTION_STATE:
            raise Unsupported(f"`.{name}` of {self.describe()}: set by Python when it is raised",
                kind="unsupported-operation")
        if name == "__class__":
            return tx.wrap(self.cls, None, trusted=True)
        klass, raw = mro_lookup(self.cls, name)
        if klass is not None and klass.__module__ != "builtins":  # a user class's entry: guarded
            tx.guards.class_attr(self.cls, name)
            if isinstance(raw, types.FunctionType):
                from autograph.capture.values.functions import BoundMethodValue, UserFunctionValue
                return BoundMethodValue(UserFunctionValue(raw), self)
            if hasattr(type(raw), "__get__"):
                raise Unsupported(f"descriptor attribute `.{name}` of {self.describe()}", kind="unsupported-operation")
        try:
            real = getattr(self.sample, name)
        except AttributeError as exc:
            if klass is None:
                from autograph.capture.values.absence import guard_absent_in_classes
                guard_absent_in_classes(tx, self.cls, name)
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        if isinstance(real, (types.BuiltinMethodType, types.MethodType)):
            from autograph.capture.values.builtins import PyFunctionValue
            return PyFunctionValue(real, name, pure=False)  # e.g. add_note(): changes the object
        return fresh_value(tx, real, f".{name}")

    def setattr(self, tx, name, value):
        from autograph.capture.values.with_exits import is_own_traceback
        if name == "__traceback__" and is_own_traceback(self, value):
            return  # puts back the traceback it has (contextlib's __exit__)
        if getattr(self.sample, "__dict__", None) is None or name in _EXCEPTION_STATE or name == "args" \
                or mro_lookup(self.cls, name)[0] is not None:
            raise Unsupported(f"attribute store `.{name} = ...` on {self.describe()}", kind="unsupported-operation")
        self.attrs[name] = value
        if value.is_constant():
            setattr(self.sample, name, value.as_python_constant())

    def reconstruct(self, cg):
        args = "(" + "".join(cg.reconstruct(a) + ", " for a in self.args) + ")"
        kwargs = "{" + ", ".join(f"{k!r}: {cg.reconstruct(v)}" for k, v in self.kwargs.items()) + "}"
        attrs = "{" + ", ".join(f"{k!r}: {cg.reconstruct(v)}" for k, v in self.attrs.items()) + "}"
        return cg.shared(self, f"{cg.const(_make)}({cg.const(self.cls)}, {args}, {kwargs}, {attrs})")


def construct(tx, cls: type, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``object()`` or an exception class called with constant arguments: a :class:`FreshObjectValue`."""
    from autograph.capture.values.builtins import _all_constant
    if not (cls is object or issubclass(cls, BaseException)) or not _all_constant(args, kwargs):
        return NotImplemented
    if not constructs_in_c(cls):
        raise Unsupported(f"creating a {cls.__qualname__} runs its Python __init__/__new__; it runs in Python",
            kind="object-construction")
    reals = [a.as_python_constant() for a in args]
    kw = {k: v.as_python_constant() for k, v in kwargs.items()}
    try:
        sample = cls(*reals, **kw)
    except Exception as exc:  # noqa: BLE001 - Python raises it natively
        raise Unsupported(f"{cls.__qualname__}() raised {type(exc).__name__}", generic=True, exc=exc,
            kind="python-exception")
    return FreshObjectValue(cls, args, kwargs, sample)
