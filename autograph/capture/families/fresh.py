"""Objects a call makes anew: results of folded operations and C constructors.

Python makes a new object on every call for ``set()``, ``[...]``, ``object()``,
``ValueError("bad")``, ``"a,b".split(",")``. Capture runs such an operation once, on
real constants, and must not hand that one object to every later call. So a folded
result is turned into a value that is *rebuilt per call* at a graph break or return:

* lists, tuples, dicts: the container values of ``containers.py`` (rebuilt item by item);
* sets: ``SetValue`` (families/sets.py), rebuilt once per call;
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

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.registry import IMMUTABLE_VALUE_TYPES

FRESH_OBJECT = break_kind(
    "fresh-object",
    "an operation makes a new object of a type capture cannot rebuild on every call",
    "the operation runs in Python; move it out of the compiled function if it is hot")

# exception state Python sets: the chain is modelled (families/exception_state.py), a traceback is not
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
        from autograph.capture.families.containers import BaseSequenceValue, DictValue, ListValue
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
            items = [self._real(i) for i in v.items]
            # a tuple subclass (a named tuple, torch.Size) is its own class, as the value rebuilds it
            real = getattr(v, "real", None)  # (sys.version_info: the object read, no new one can be made)
            out = v.kind(items) if v.python_type() is v.kind else \
                real if real is not None and _uncreatable(v.python_type()) else _own_class(v.python_type(), items)
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

    def wrap_result(self, tx, result: Any, name: str, own: bool = False) -> Value:
        """``own``: the call returns objects nothing else holds (a set operator's new set)."""
        return fresh_value(tx, result, name, self._value_of, {}, own=own)


def _uncreatable(cls: type) -> bool:
    from autograph.capture.families.named_tuples import uncreatable
    return uncreatable(cls)


def _own_class(cls: type, items: list) -> Any:
    """``items`` as a tuple of ``cls`` (a named tuple is made without its ``__new__``)."""
    from autograph.capture.families.named_tuples import _rebuild, is_named_tuple_class
    return _rebuild(cls, tuple(items)) if is_named_tuple_class(cls) else cls(items)


def _layout(obj: Any) -> Any:
    """What an in-place change would alter: the identities of a container's elements."""
    if isinstance(obj, dict):
        return tuple((k, id(v)) for k, v in obj.items())
    if isinstance(obj, set):
        return frozenset(obj)
    return tuple(id(x) for x in obj)


def fresh_value(tx, obj: Any, name: str, known: dict | None = None, made: dict | None = None,
                own: bool = False) -> Value:
    """A value rebuilt per call for an object made at capture time. ``known`` maps real copies
    of the call's values back to them; ``made`` keeps one value per new object (aliasing).
    ``own``: ``obj`` is a call's result, held by nothing else (a set in it is kept as made)."""
    from autograph.capture.families.containers import DictValue, ListValue, TupleValue
    from autograph.capture.families.objects import ObjectValue
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
        value.items.extend(fresh_value(tx, x, name, known, made, own) for x in obj)
        return value
    if cls is dict:
        value = DictValue({})
        made[id(obj)] = (value, obj)
        value.items.update({k: fresh_value(tx, v, name, known, made, own) for k, v in obj.items()})
        return value
    if cls is tuple:
        return TupleValue([fresh_value(tx, x, name, known, made, own) for x in obj])
    if cls is set and all(_plain_key(x) for x in obj):  # (``d1.items() | d2.items()``)
        from autograph.capture.families.sets import SetValue
        if own:  # the real call's own set: its table as made (one value however often it occurs)
            value = SetValue(obj, adopt=True)
            made[id(obj)] = (value, obj)
            return value
        return SetValue(obj, order_known=list(set(obj)) == list(obj))  # a copy (the object is held)
    value = tx.wrap(obj, None, trusted=True)
    if type(value) is ObjectValue and cls not in IMMUTABLE_VALUE_TYPES:
        raise Unsupported(f"{name}() made a {cls.__qualname__} object; Python makes a new one on every call",
                          kind=FRESH_OBJECT)
    return value


def _plain_key(obj: Any) -> bool:
    """A set element hashed and compared by value by a builtin type (a new set of these is a
    set of constants: its order is the real table's)."""
    if type(obj) is tuple:
        return all(_plain_key(x) for x in obj)
    return type(obj) in (int, float, str, bytes, bool, complex, type(None))


def constructs_in_c(cls: type) -> bool:
    """Whether ``cls(...)`` runs no Python code (no Python ``__new__``/``__init__``/metaclass call)."""
    if type(cls) is not type:
        return False
    return not any(isinstance(mro_lookup(cls, name)[1], (types.FunctionType, staticmethod, classmethod))
                   for name in ("__new__", "__init__"))


def inits_in_python(cls: type) -> bool:
    """An exception class made by C ``__new__`` then a Python ``__init__`` capture interprets: a plain
    metaclass, no Python ``__new__`` and no Python attribute hooks (every store must be an attribute)."""
    if type(cls) is not type or not issubclass(cls, BaseException):
        return False
    if any(isinstance(mro_lookup(cls, name)[1], (types.FunctionType, staticmethod, classmethod))
           for name in ("__new__", "__setattr__", "__getattribute__", "__getattr__", "__delattr__")):
        return False
    if any("__slots__" in klass.__dict__ for klass in cls.__mro__):
        return False
    return isinstance(mro_lookup(cls, "__init__")[1], types.FunctionType)


def constructible(cls: type) -> bool:
    """Whether :func:`construct` can make ``cls(...)`` (of constant arguments) anew on every call."""
    return constructs_in_c(cls) or inits_in_python(cls)


# C exception classes whose ``__init__`` only sets ``args`` (BaseException_init): a Python ``__init__``
# calling theirs (``super().__init__(msg)``) is replayed as a store of ``args``
_ARGS_ONLY_INIT = frozenset({BaseException, Exception, ArithmeticError, LookupError, ValueError, TypeError,
                             RuntimeError, NotImplementedError, KeyError, IndexError, ZeroDivisionError,
                             AssertionError, OverflowError, RecursionError, ReferenceError, BufferError,
                             EOFError, MemoryError, UnicodeError, Warning, UserWarning, DeprecationWarning,
                             RuntimeWarning})


def _make_new(cls: type, args: tuple, kwargs: dict, attrs: dict) -> Any:
    """Used by the transformed code for an exception with a Python ``__init__``: ``cls.__new__`` (C,
    which keeps ``args``) and the stores its ``__init__`` made during capture, in order (its other
    effects are replayed as effects of the call); ``__init__`` itself does not run again."""
    obj = cls.__new__(cls, *args, **kwargs)
    for name, value in attrs.items():
        setattr(obj, name, value)
    return obj


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
        self.raised = False  # raised during the call: Python gave it a traceback
        self.init_in_python = False  # made by C __new__ + a Python __init__ capture interpreted

    def describe(self):
        return f"{self.cls.__qualname__} object (made during the call)"

    def python_type(self):
        return self.cls

    def real_value(self):
        return self.sample

    def getattr(self, tx, name):
        if name in _EXCEPTION_STATE and isinstance(self.sample, BaseException):
            from autograph.capture.families import exception_state
            if name in exception_state.CHAIN_ATTRS:
                return exception_state.get_chain_attr(tx, self, name)
            if not self.raised:  # never raised: no traceback yet
                from autograph.capture.core.constants import ConstantValue
                return ConstantValue(None)
            raise Unsupported(f"`.{name}` of {self.describe()}: set by Python when it is raised",
                kind=exception_state.EXCEPTION_STATE)
        if name in self.attrs:
            return self.attrs[name]
        if name == "with_traceback" and isinstance(self.sample, BaseException):
            from autograph.capture.families.with_exits import WithTracebackMethod
            return WithTracebackMethod(self)
        if name == "__class__":
            return tx.wrap(self.cls, None, trusted=True)
        klass, raw = mro_lookup(self.cls, name)
        if klass is not None and klass.__module__ != "builtins":  # a user class's entry: guarded
            tx.guards.class_attr(self.cls, name)
            if isinstance(raw, types.FunctionType):
                from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
                return BoundMethodValue(UserFunctionValue(raw), self)
            if hasattr(type(raw), "__get__"):
                raise Unsupported(f"descriptor attribute `.{name}` of {self.describe()}", kind="unsupported-operation")
        try:
            real = getattr(self.sample, name)
        except AttributeError as exc:
            if klass is None:
                from autograph.capture.families.absence import guard_absent_in_classes
                guard_absent_in_classes(tx, self.cls, name)
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        if isinstance(real, (types.BuiltinMethodType, types.MethodType)):
            from autograph.capture.families.builtins import PyFunctionValue
            return PyFunctionValue(real, name, pure=False)  # e.g. add_note(): changes the object
        return fresh_value(tx, real, f".{name}")

    def setattr(self, tx, name, value):
        from autograph.capture.families.with_exits import is_own_traceback
        if name == "__traceback__" and is_own_traceback(self, value):
            return  # puts back the traceback it has (contextlib's __exit__)
        from autograph.capture.families import exception_state
        if name in exception_state.CHAIN_ATTRS and isinstance(self.sample, BaseException):
            return exception_state.set_chain_attr(tx, self, name, value)
        if getattr(self.sample, "__dict__", None) is None or name in _EXCEPTION_STATE or name == "args" \
                or mro_lookup(self.cls, name)[0] is not None:
            raise Unsupported(f"attribute store `.{name} = ...` on {self.describe()}", kind="unsupported-operation")
        self.attrs[name] = value
        if value.is_constant():
            setattr(self.sample, name, value.as_python_constant())

    def reconstruct(self, cg):
        if self.raised:  # (the break moves to the raise: Python raises it and gives it its traceback)
            from autograph.capture.families import exception_state
            raise Unsupported(f"{self.describe()} was raised: its traceback cannot be rebuilt",
                              kind=exception_state.EXCEPTION_STATE)
        args = "(" + "".join(cg.reconstruct(a) + ", " for a in self.args) + ")"
        kwargs = "{" + ", ".join(f"{k!r}: {cg.reconstruct(v)}" for k, v in self.kwargs.items()) + "}"
        attrs = "{" + ", ".join(f"{k!r}: {cg.reconstruct(v)}" for k, v in self.attrs.items()) + "}"
        make = _make_new if self.init_in_python else _make
        return cg.shared(self, f"{cg.const(make)}({cg.const(self.cls)}, {args}, {kwargs}, {attrs})")

    def native_init(self, tx, method: Any, owner: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """``super().__init__(...)`` of a C exception class from the Python ``__init__``: Python's own
        runs on the sample (its TypeError is Python's); what it did, ``args``, is a store replayed."""
        from autograph.capture.families.builtins import _all_constant
        from autograph.capture.core.constants import ConstantValue
        if owner not in _ARGS_ONLY_INIT or not _all_constant(args, kwargs) or not isinstance(self.sample, owner):
            raise Unsupported(f"{getattr(owner, '__name__', '?')}.__init__ on {self.describe()}",
                              kind="object-construction")
        try:
            method(self.sample, *[a.as_python_constant() for a in args],
                   **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as exc:  # noqa: BLE001 - Python raises it natively
            raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")
        self.attrs["args"] = ConstantValue(self.sample.args)
        return ConstantValue(None)


def construct(tx, cls: type, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``object()`` or an exception class called with constant arguments: a :class:`FreshObjectValue`."""
    from autograph.capture.families.builtins import _all_constant
    if not (cls is object or issubclass(cls, BaseException)) or not _all_constant(args, kwargs):
        return NotImplemented
    reals = [a.as_python_constant() for a in args]
    kw = {k: v.as_python_constant() for k, v in kwargs.items()}
    if inits_in_python(cls):
        return _construct_with_python_init(tx, cls, args, kwargs, reals, kw)
    if not constructs_in_c(cls):
        raise Unsupported(f"creating a {cls.__qualname__} runs its Python __init__/__new__; it runs in Python",
            kind="object-construction")
    try:
        sample = cls(*reals, **kw)
    except Exception as exc:  # noqa: BLE001 - Python raises it natively
        raise Unsupported(f"{cls.__qualname__}() raised {type(exc).__name__}", generic=True, exc=exc,
            kind="python-exception")
    return FreshObjectValue(cls, args, kwargs, sample)


def _construct_with_python_init(tx, cls: type, args: list[Value], kwargs: dict[str, Value], reals: list,
                                kw: dict) -> Value:
    """``type.__call__`` for an exception class with a Python ``__init__``: C ``__new__`` on the
    constants (``args``), then the ``__init__`` interpreted on the new value (its stores are modelled)."""
    try:
        sample = cls.__new__(cls, *reals, **kw)
    except Exception as exc:  # noqa: BLE001 - Python raises it natively
        raise Unsupported(f"{cls.__qualname__}() raised {type(exc).__name__}", generic=True, exc=exc,
            kind="python-exception")
    value = FreshObjectValue(cls, args, kwargs, sample)
    value.init_in_python = True
    from autograph.capture.families.functions import UserFunctionValue
    init = mro_lookup(cls, "__init__")[1]
    tx.guards.class_attr(cls, "__init__")
    result = UserFunctionValue(init).call(tx, [value, *args], kwargs)
    if not (result.is_constant() and result.as_python_constant() is None):
        err = TypeError(f"__init__() should return None, not '{result.python_type().__name__}'")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
    return value
