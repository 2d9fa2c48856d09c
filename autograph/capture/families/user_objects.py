"""User-defined class instances created during capture, and ``super()`` (generators: families/generators.py).

Python's object protocol, interpreted: attribute lookup goes through the MRO
(data descriptors, then the instance ``__dict__``, then class attributes, then
``__getattr__``), ``obj.x = v`` runs a user ``__setattr__``, ``obj[k]`` a user
``__getitem__``, and so on. Instances of ``dict`` subclasses (dataclass-like
``ModelOutput``s, say) also carry their dict items. Nothing runs for real at
capture time; at a graph break or return the object is rebuilt from its final
state (class, ``__dict__``, dict items) — the same object eager would have made.

Anything this module cannot follow exactly (a metaclass, ``__slots__``, a
C-level ``__new__``/``__getattribute__``, a descriptor we do not know) raises
``Unsupported``: a graph break, never a wrong result.
"""
from __future__ import annotations

import collections
import types
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.families import class_stores, scalar_subclasses, set_subclasses, side_effects, truth_protocol
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import DictValue, DictViewValue, ListIteratorValue, ListValue
from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
from autograph.capture.families.unbound_calls import call_as_bound
from autograph.capture.families.set_rebuild_order import FilledSet

# C base classes whose construction and slots this module models
_DICT_BASES = (dict, collections.OrderedDict)
_SET_BASES = (set, frozenset)  # families/set_subclasses.py
_SCALAR_BASES = scalar_subclasses.SCALAR_BASES  # int, float, str (families/scalar_subclasses.py)
_PLAIN_BASES = (object, list, tuple) + _DICT_BASES + _SET_BASES + _SCALAR_BASES
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (or type())


def _rebuild(cls: type, attrs: dict, items: dict | None, slots: dict | None = None) -> Any:
    """The real object with the final state capture computed (used by the transformed code):
    made by its C base's ``__new__`` (a user ``__new__`` already ran during capture); a set
    subclass's table is filled by set's own C code from ``items`` (families/set_subclasses.py)."""
    base = next(b for b in cls.__mro__ if b in _PLAIN_BASES)
    obj = base.__new__(cls, items) if base in (frozenset, tuple) + _SCALAR_BASES else base.__new__(cls)
    if base is set and isinstance(items, FilledSet):
        items.fill(obj)  # a table whose removal history decides its order
    elif base is set:
        set.__init__(obj, items)
    elif base in (frozenset, tuple) + _SCALAR_BASES:
        pass  # items fixed by __new__
    elif isinstance(items, list):  # a list subclass: its items
        list.extend(obj, items)
    elif items is not None:
        base = next(b for b in cls.__mro__ if b in _DICT_BASES)
        for k, v in items.items():
            base.__setitem__(obj, k, v)
    for name, value in (slots or {}).items():
        mro_lookup(cls, name)[1].__set__(obj, value)  # the slot's member descriptor
    if attrs:
        obj.__dict__.update(attrs)
    return obj


def _is_slot(cls: type, name: str) -> bool:
    """Whether ``name`` is a ``__slots__`` entry of a Python class in ``cls.__mro__``."""
    klass, raw = mro_lookup(cls, name)
    return type(raw) is types.MemberDescriptorType and "__slots__" in klass.__dict__


def _plain_slots(klass: type) -> bool:
    """A class statement's ``__slots__``: each name a member descriptor of the class."""
    slots = klass.__dict__.get("__slots__", ())
    names = (slots,) if isinstance(slots, str) else tuple(slots)
    return all(n in ("__dict__", "__weakref__") or _is_slot(klass, _mangled(klass, n)) for n in names)


def _mangled(klass: type, name: str) -> str:
    if name.startswith("__") and not name.endswith("__"):
        return f"_{klass.__name__.lstrip('_')}{name}"
    return name


def _python_attr(cls: type, name: str) -> Any:
    """``name`` from the first class in ``cls.__mro__`` defining it (``None`` when absent)."""
    return mro_lookup(cls, name)[1]


def _user_defined(cls: type, name: str) -> types.FunctionType | None:
    """A Python-level special method (not one inherited from object/dict)."""
    attr = _python_attr(cls, name)
    return attr if isinstance(attr, types.FunctionType) else None


# what a metaclass may define and still create and look up instances as ``type`` does: hooks that
# run only when a class is made or when a class attribute is stored (capture stores none)
_CLASS_TIME_HOOKS = frozenset({"__new__", "__init__", "__prepare__", "__setattr__", "__delattr__",
                               "__module__", "__qualname__", "__doc__", "__firstlineno__",
                               "__static_attributes__", "__dict__", "__weakref__"})


def _plain_metaclass(meta: type) -> bool:
    """A metaclass whose instances behave as ``type``'s at call and lookup time."""
    if meta is type or meta.__name__ == "ABCMeta":
        return True
    return all(set(k.__dict__) <= _CLASS_TIME_HOOKS for k in meta.__mro__ if k not in (type, object))


def _special(tx, cls: type, name: str) -> types.FunctionType | None:
    """:func:`_user_defined`, guarded: the class's entry stays that function, or stays absent
    (a ``__len__`` added to the class later changes ``bool(obj)``)."""
    fn = _user_defined(cls, name)
    if fn is not None:
        tx.guards.class_attr(cls, name)
    elif _python_attr(cls, name) is None:
        from autograph.capture.families.absence import guard_absent_in_classes
        guard_absent_in_classes(tx, cls, name)
    return fn


def _no_odd_special(cls: type, name: str) -> None:
    """A special method that is neither a Python function nor a builtin base's slot (``__len__ =
    None``, a callable object) makes Python call whatever it is: not modelled, a break."""
    klass, raw = mro_lookup(cls, name)
    if raw is not None and klass not in _PLAIN_BASES and not isinstance(raw, types.FunctionType):
        raise Unsupported(f"{cls.__qualname__}.{name} is {type(raw).__name__}, not a function",
                          kind="unsupported-operation")


def _python_new(cls: type) -> types.FunctionType | None:
    """A ``__new__`` written in Python (a ``def __new__`` is a staticmethod in the class dict)."""
    raw = _python_attr(cls, "__new__")
    if isinstance(raw, staticmethod) and type(raw.__func__) is types.FunctionType:
        return raw.__func__
    return None


def supported_class(cls: type) -> str | None:
    """Why instances of ``cls`` cannot be modelled, or None when they can."""
    if not isinstance(cls, type) or not _plain_metaclass(type(cls)):
        return f"class {cls.__qualname__} has metaclass {type(cls).__name__}"
    for klass in cls.__mro__:
        if klass in _PLAIN_BASES:
            continue
        if klass.__module__ == "builtins" or not _plain_slots(klass):
            return f"class {cls.__qualname__} derives from {klass.__qualname__} (C type or __slots__)"
        if issubclass(cls, tuple) and not klass.__flags__ & _HEAP_TYPE:  # torch.Size, structseqs
            return f"class {cls.__qualname__} derives from {klass.__qualname__} (C type)"
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return f"class {cls.__qualname__} is a named tuple"  # (families/named_tuples.py)
    for name in ("__new__", "__getattribute__", "__del__"):
        attr = _python_attr(cls, name)
        if name == "__new__" and _python_new(cls) is not None:
            continue  # Python code: run by construct()
        if attr is not None and not any(attr is b.__dict__.get(name) for b in _PLAIN_BASES):
            return f"class {cls.__qualname__} defines {name}"
    return None


class UserObjectValue(Value):
    """An instance of a user-defined class made during capture."""

    mutable = True

    def __init__(self, cls: type):
        self.cls = cls
        self.attrs = DictValue({})  # the instance __dict__
        self.slots: dict[str, Value] = {}  # filled ``__slots__`` entries
        self.items: Any = None  # a dict or list subclass: its items
        if issubclass(cls, _DICT_BASES):
            self.items = DictValue({}, kind=dict)
        elif issubclass(cls, list):
            self.items = ListValue([])
        elif issubclass(cls, tuple):
            from autograph.capture.families.containers import TupleValue
            self.items = TupleValue([])  # filled by tuple.__new__ (_tuple_new)
        elif issubclass(cls, _SET_BASES):
            from autograph.capture.families.sets import SetValue
            self.items = SetValue([], frozenset if issubclass(cls, frozenset) else set)

    def describe(self):
        return f"{self.cls.__qualname__} object (made during capture)"

    def python_type(self):
        return self.cls

    def own_attr(self, name: str) -> Value | None:
        """The instance ``__dict__`` entry ``name`` as capture holds it (no lookup, no guard)."""
        return self.attrs.items.get(name)

    # --- attribute protocol ----------------------------------------------------
    def getattr(self, tx, name):
        if name == "__class__":
            return tx.wrap(self.cls, None, trusted=True)
        if name == "__dict__" and self.cls.__dictoffset__:
            return self.attrs
        if _is_slot(self.cls, name):
            if name in self.slots:
                return self.slots[name]
            exc = AttributeError(f"{self.cls.__name__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        attr = _python_attr(self.cls, name)
        if isinstance(attr, property):
            if not isinstance(attr.fget, types.FunctionType):
                raise Unsupported(f"property `.{name}` of {self.describe()} has no Python getter",
                                  kind="unsupported-operation")
            tx.guards.class_attr(self.cls, name)
            return UserFunctionValue(attr.fget).call(tx, [self], {})
        if attr is not None and _is_data_descriptor(attr):
            raise Unsupported(f"descriptor attribute `.{name}` of {self.describe()}", kind="unsupported-operation")
        if name in self.attrs.items:
            return self.attrs.items[name]
        if attr is not None:
            stored = class_stores.resolved(tx, self.cls, name)
            if stored is not None:  # the class entry, stored earlier in this capture
                return stored
            return _bind_class_attr(tx, self, self.cls, name, attr)
        from autograph.capture.families.absence import guard_absent_in_classes
        guard_absent_in_classes(tx, self.cls, name)  # a class attribute added later recaptures
        getattr_fn = _special(tx, self.cls, "__getattr__")
        if getattr_fn is not None:
            return UserFunctionValue(getattr_fn).call(tx, [self, ConstantValue(name)], {})
        err = AttributeError(f"{self.cls.__qualname__!r} object has no attribute {name!r}")
        raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")

    def setattr(self, tx, name, value):
        setattr_fn = _special(tx, self.cls, "__setattr__")
        if setattr_fn is not None:
            UserFunctionValue(setattr_fn).call(tx, [self, ConstantValue(name), value], {})
            return
        self.object_setattr(tx, name, value)

    def object_setattr(self, tx, name, value):
        """``object.__setattr__``: data descriptors first, then the instance ``__dict__``."""
        attr = _python_attr(self.cls, name)
        if isinstance(attr, property):
            if not isinstance(attr.fset, types.FunctionType):
                raise Unsupported(f"AttributeError: property {name!r} has no Python setter", generic=True,
                                  kind="python-exception")
            UserFunctionValue(attr.fset).call(tx, [self, value], {})
            return
        if _is_slot(self.cls, name):
            self.slots[name] = value
            return
        if attr is not None and _is_data_descriptor(attr):
            raise Unsupported(f"descriptor attribute store `.{name}` on {self.describe()}", kind="unsupported-operation")
        if not self.cls.__dictoffset__:  # __slots__ only: no instance __dict__
            exc = AttributeError(f"{self.cls.__name__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        self.attrs.items[name] = value

    def delattr(self, tx, name):
        fn = _special(tx, self.cls, "__delattr__")
        if fn is not None:
            UserFunctionValue(fn).call(tx, [self, ConstantValue(name)], {})
            return
        if _is_slot(self.cls, name) and name in self.slots:
            del self.slots[name]
            return
        if _is_data_descriptor(_python_attr(self.cls, name)):
            raise Unsupported(f"`del` of descriptor attribute `.{name}` of {self.describe()}",
                              kind="unsupported-operation")
        if name not in self.attrs.items:
            raise Unsupported(f"AttributeError: {name!r}", generic=True, exc=AttributeError(name),
                              kind="python-exception")
        del self.attrs.items[name]

    # --- special methods -------------------------------------------------------------
    def _special(self, tx, name, args):
        fn = _special(tx, self.cls, name)
        if fn is None:
            return None
        return UserFunctionValue(fn).call(tx, [self, *args], {})

    def call(self, tx, args, kwargs):
        fn = _special(tx, self.cls, "__call__")
        if fn is None:
            raise Unsupported(f"TypeError: {self.describe()} is not callable", generic=True, kind="python-exception")
        return UserFunctionValue(fn).call(tx, [self, *args], kwargs)

    def getitem(self, tx, key):
        out = self._special(tx, "__getitem__", [key])
        if out is not None:
            return out
        if self.items is not None:
            scalar_subclasses.refuse_as_container(self)
            return self.items.getitem(tx, key)
        raise Unsupported(f"TypeError: {self.describe()} is not subscriptable", generic=True, kind="python-exception")

    def setitem(self, tx, key, value):
        if self._special(tx, "__setitem__", [key, value]) is not None:
            return
        if self.items is not None:
            scalar_subclasses.refuse_as_container(self)
            return self.items.setitem(tx, key, value)
        raise Unsupported(f"TypeError: {self.describe()} does not support item assignment", generic=True,
                          kind="python-exception")

    def iter_items(self, tx):
        it = self.get_iter(tx)
        if it is self:  # its own iterator: drained through its __next__
            out = []
            while (item := self.next(tx)) is not None:
                out.append(item)
            return out
        return it.iter_items(tx)

    def is_user_iterator(self, tx) -> bool:
        """Whether the class has a Python ``__next__`` (an iterator written in Python)."""
        return _special(tx, self.cls, "__next__") is not None

    def next(self, tx) -> Value | None:
        """``next(obj)`` as a loop asks for it: the class's ``__next__``, None when it raises
        StopIteration (the loop's end, as ``FOR_ITER`` and ``list()`` take it)."""
        try:
            return self._special(tx, "__next__", [])
        except Unsupported as err:
            if err.generic and isinstance(err.exc, StopIteration):
                return None
            raise

    def next_or_raise(self, tx) -> Value:
        """``next(obj)`` without a default: the class's ``__next__``, its StopIteration as raised."""
        return self._special(tx, "__next__", [])

    def get_iter(self, tx):
        out = self._special(tx, "__iter__", [])
        if out is not None:
            if isinstance(out, UserObjectValue) and out.is_user_iterator(tx):
                return out  # an iterator written in Python (often ``return self``)
            if not isinstance(out, ListIteratorValue):
                raise Unsupported(f"__iter__ of {self.describe()} returned {out.describe()}",
                    kind="unsupported-operation")
            return out  # e.g. a generator: advanced lazily by the loop
        if self.items is not None:
            scalar_subclasses.refuse_as_container(self)
            return self.items.get_iter(tx)
        raise Unsupported(f"TypeError: {self.describe()} is not iterable", generic=True, kind="python-exception")

    def mapping_items(self, tx) -> list[tuple[Value, Value]]:
        """The pairs ``d.update(m)``, ``dict(m)`` and ``{**m}`` copy (CPython's ``PyDict_Merge``): a
        dict subclass that keeps dict's ``__iter__`` is read from its table directly (no method of
        it runs); any other mapping through its ``keys()`` and ``m[k]``."""
        from autograph.capture.families.containers import _key_value, mapping_items
        if isinstance(self.items, DictValue) and mro_lookup(self.cls, "__iter__")[1] is dict.__dict__["__iter__"]:
            return [(_key_value(k), v) for k, v in self.items.items.items()]
        return mapping_items(tx, self)

    def length(self, tx):
        _no_odd_special(self.cls, "__len__")
        out = self._special(tx, "__len__", [])
        if out is not None:
            return truth_protocol.len_result(out)
        if self.items is not None:
            scalar_subclasses.refuse_as_container(self)
            return self.items.length(tx)
        raise Unsupported(f"TypeError: object of type {self.cls.__qualname__} has no len()", generic=True,
                          kind="python-exception")

    def truth(self, tx):
        _no_odd_special(self.cls, "__bool__")
        out = self._special(tx, "__bool__", [])
        if out is not None:
            return truth_protocol.bool_result(tx, out)
        scalar = scalar_subclasses.truth(self)
        if scalar is not None:
            return scalar
        _no_odd_special(self.cls, "__len__")
        if _special(tx, self.cls, "__len__") is not None or self.items is not None:
            return self.length(tx) > 0
        return True

    def contains(self, tx, item):
        out = self._special(tx, "__contains__", [item])
        if out is not None:
            return ConstantValue(out.truth(tx))
        if self.items is not None:
            scalar_subclasses.refuse_as_container(self)
            return self.items.contains(tx, item)
        if _special(tx, self.cls, "__iter__") is not None and self.get_iter(tx) is self:
            # its own iterator: consumed up to the first match, each comparison decided here (the
            # object's state after the search is what eager leaves)
            from autograph.capture.core.base import equal_or_identical
            while (candidate := self.next(tx)) is not None:
                if equal_or_identical(tx, candidate, item):
                    return ConstantValue(True)
            return ConstantValue(False)
        return super().contains(tx, item)

    def unary_op(self, tx, op):
        """``-o``, ``+o``, ``~o``: the class's ``__neg__``/``__pos__``/``__invert__`` written in
        Python, or Python's TypeError when the class has none (``not o`` is truth())."""
        name = _UNARY_SPECIALS.get(op)
        if name is None:
            raise Unsupported(f"unary {op} on {self.describe()}", kind="unsupported-operation")
        _no_odd_special(self.cls, name)
        out = self._special(tx, name, [])
        if out is not None:
            return out
        exc = TypeError(f"bad operand type for unary {op}: {self.cls.__name__!r}")
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")

    def binary_op(self, tx, op, other):
        """``+``, ``+=``, ``*``, ``*=`` of a list subclass that keeps ``list``'s operator; set
        operators of a set subclass that keeps set's (families/set_subclasses.py); ``|``, ``|=`` of a
        dict subclass that keeps dict's (families/dict_operators.py); the base's operator of an int,
        float or str subclass that keeps it (families/scalar_subclasses.py)."""
        if scalar_subclasses.scalar_items(self) is not None:
            return scalar_subclasses.binary_op(tx, self, op, other, reflected=False)
        if set_subclasses.set_items(self) is not None:
            return set_subclasses.binary_op(tx, self, op, other)
        if op in ("|", "|="):
            from autograph.capture.families.dict_operators import dict_binary_op
            return dict_binary_op(tx, self, op, other)
        tupled = self._tuple_operator(tx, op, other, reflected=False)
        if tupled is not NotImplemented:
            return tupled
        name = _LIST_OPERATORS.get(op)
        if name is None or not isinstance(self.items, ListValue) or _special(tx, self.cls, name) is not None \
                or mro_lookup(self.cls, name)[0] is not list:
            return NotImplemented
        return _list_method(tx, self, name, [other], {})

    def rbinary_op(self, tx, op, other):
        if scalar_subclasses.scalar_items(self) is not None:
            return scalar_subclasses.binary_op(tx, self, op, other, reflected=True)
        if set_subclasses.set_items(self) is not None:
            return set_subclasses.rbinary_op(tx, self, op, other)
        return self._tuple_operator(tx, op, other, reflected=True)

    def _tuple_operator(self, tx, op, other, *, reflected: bool):
        """``+`` / ``*`` (and ``+=`` / ``*=``, which tuples do not have in place) of a tuple
        subclass that keeps tuple's ``__add__`` / ``__mul__``: a plain tuple, as tuple's C code
        makes it. ``n * t`` is ``t.__rmul__(n)``; ``(1,) + t`` is handled by the plain tuple."""
        from autograph.capture.families.containers import TupleValue
        base_op = op.rstrip("=") if op in ("+=", "*=") else op
        if not isinstance(self.items, TupleValue) or base_op not in ("+", "*"):
            return NotImplemented
        if base_op == "+":
            if isinstance(other, UserObjectValue) and mro_lookup(other.cls, "__radd__")[0] is not None:
                return NotImplemented  # its own reflected operator may come first
            other = _tuple_compared(other, "==")  # (any tuple, or a subclass's items)
            if reflected:  # tuple.__add__(other, self), unless the class has its own __radd__
                if other is None or mro_lookup(self.cls, "__radd__")[0] is not None:
                    return NotImplemented
                return vb.binary_op(tx, "+", other, self.items)
            if other is None or mro_lookup(self.cls, "__add__")[0] is not tuple:
                return NotImplemented
            return vb.binary_op(tx, "+", self.items, other)
        if mro_lookup(self.cls, "__rmul__" if reflected else "__mul__")[0] is not tuple:
            return NotImplemented
        return vb.binary_op(tx, "*", self.items, other)

    def compare_op(self, tx, op, other):
        if scalar_subclasses.scalar_items(self) is not None:
            return scalar_subclasses.compare_op(tx, self, op, other)
        if set_subclasses.set_items(self) is not None:
            return set_subclasses.compare_op(tx, self, op, other)
        mine, theirs = _tuple_compared(self, op), _tuple_compared(other, vb._SWAPPED.get(op, op))
        if mine is not None and theirs is not None:
            return vb.compare(tx, mine, op, theirs)  # tuple's comparison of the items
        from autograph.capture.families.dict_operators import dict_compare
        return dict_compare(tx, self, op, other)  # (a dict subclass keeping dict's ==)

    def guarded_text_snapshot(self, tx) -> Any:
        """A real object printing as this one does (a set subclass printed by set's C code)."""
        return set_subclasses.text_object(tx, self)

    def sequence_items(self) -> list[Value] | None:
        """The items of an instance of a list subclass (None for other classes)."""
        return self.items.items if isinstance(self.items, ListValue) else None

    def reconstruct(self, cg):
        if set_subclasses.set_items(self) is not None:
            items = set_subclasses.items_text(cg, self.items)
        else:
            items = cg.reconstruct(self.items) if self.items is not None else "None"
        slots = "{" + "".join(f"{k!r}: {cg.reconstruct(v)}, " for k, v in self.slots.items()) + "}"
        return cg.shared(self, f"{cg.const(_rebuild)}({cg.const(self.cls)}, {cg.reconstruct(self.attrs)}, {items}, "
                               f"{slots})")


_COMPARE_NAMES = {"<": "__lt__", "<=": "__le__", "==": "__eq__", "!=": "__ne__", ">": "__gt__", ">=": "__ge__"}


def _tuple_compared(value: Value, op: str) -> Value | None:
    """The plain tuple ``value`` compares as under ``op`` when tuple's own comparison decides:
    a tuple, or an instance of a tuple subclass that keeps tuple's method; None otherwise."""
    from autograph.capture.families.containers import TupleValue
    name = _COMPARE_NAMES.get(op)
    if name is None:
        return None
    if isinstance(value, TupleValue) and value.python_type() is tuple:
        return value
    if isinstance(value, UserObjectValue) and isinstance(value.items, TupleValue) \
            and mro_lookup(value.cls, name)[0] is tuple:
        return value.items
    return None


def _is_data_descriptor(attr: Any) -> bool:
    t = type(attr)
    return hasattr(t, "__get__") and (hasattr(t, "__set__") or hasattr(t, "__delete__"))


_UNARY_SPECIALS = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}


def _bind_class_attr(tx, obj: Value, cls: type, name: str, attr: Any) -> Value:
    """A class attribute seen through an instance: functions bind, others are read."""
    if isinstance(attr, (staticmethod, classmethod)):
        tx.guards.class_attr(cls, name)
    if isinstance(attr, types.FunctionType):
        tx.guards.method(obj.source, cls, name, attr)
        return BoundMethodValue(UserFunctionValue(attr), obj)
    if isinstance(attr, staticmethod):  # the class entry is guarded above; its __func__ is read-only
        return tx.wrap(attr.__func__, None, trusted=True)
    if isinstance(attr, classmethod) and isinstance(attr.__func__, types.FunctionType):
        return BoundMethodValue(UserFunctionValue(attr.__func__), tx.wrap(cls, None, trusted=True))
    if type(attr).__name__ in ("method_descriptor", "wrapper_descriptor", "builtin_function_or_method"):
        return NativeMethodValue(obj, attr, name)
    if hasattr(type(attr), "__get__"):
        raise Unsupported(f"descriptor attribute `.{name}` of {cls.__qualname__}", kind="unsupported-operation")
    return tx.wrap(getattr(cls, name), None, pin=lambda: getattr(cls, name), what=f"{cls.__qualname__}.{name}")


# ---------------------------------------------------------------------------
# C methods of object/dict applied to a captured object

_DICT_METHODS = {"get", "keys", "values", "items", "pop", "setdefault", "update", "copy", "clear",
                 "popitem", "__getitem__", "__setitem__", "__delitem__", "__contains__", "__len__", "__iter__"}


class NativeMethodValue(Value):
    """``object.__setattr__``, ``dict.__setitem__``, … bound to a captured object."""

    def __init__(self, obj: Value, method: Any, name: str):
        self.obj = obj
        self.method = method
        self.name = name

    def describe(self):
        return f"method {self.name} of {self.obj.describe()}"

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__") and isinstance(getattr(self.method, "__name__", None), str):
            # a bound builtin method's names (``assertRaises`` reads them): its own, qualified by
            # the type of the object it is bound to, as ``builtin_function_or_method`` does
            text = self.method.__name__
            if name == "__qualname__":  # (a slot wrapper's ``method-wrapper`` keeps its descriptor's)
                text = (self.method.__qualname__ if type(self.method).__name__ == "wrapper_descriptor"
                        else f"{self.obj.python_type().__qualname__}.{text}")
            return ConstantValue(text)
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        obj, name = self.obj, self.name
        owner = getattr(self.method, "__objclass__", None)
        if isinstance(obj, UserObjectValue):
            if owner is object:
                if name == "__setattr__" and len(args) == 2 and not kwargs:
                    obj.object_setattr(tx, args[0].as_python_constant(), args[1])
                    return ConstantValue(None)
                if name == "__init__" and not args and not kwargs:
                    return ConstantValue(None)
                if name == "__getattribute__" and len(args) == 1:
                    return obj.getattr(tx, args[0].as_python_constant())
                if name in ("__eq__", "__ne__") and len(args) == 1 and not kwargs:
                    return _object_equality(tx, obj, args[0], name)
            if owner is list and isinstance(obj.items, ListValue):
                return _list_method(tx, obj, name, args, kwargs)
            if owner in _SCALAR_BASES and scalar_subclasses.scalar_items(obj) is not None:
                return scalar_subclasses.native_method(tx, obj, self.method, name, args, kwargs)
            if owner in _SET_BASES and set_subclasses.set_items(obj) is not None:
                return set_subclasses.native_method(tx, obj, obj.items, self.method, name, args, kwargs)
            if owner is tuple and name in ("count", "index", "__getitem__", "__len__", "__contains__") \
                    and obj.items is not None and obj.items.python_type() is tuple:
                return obj.items.call_method(tx, name, args, kwargs)  # the tuple model's, on the items
            if owner is dict and isinstance(obj.items, DictValue):
                from autograph.capture.families.dict_operators import dict_method_of_subclass
                out = dict_method_of_subclass(tx, obj, name, args, kwargs)
                if out is not NotImplemented:
                    return out
            if owner in _DICT_BASES and obj.items is not None and name in _DICT_METHODS | {"__init__"}:
                if name in ("keys", "values", "items") and not args and not kwargs:
                    return DictViewValue(obj.items, name, owner=obj, method=self.method)
                return _dict_method(tx, obj.items, name, args, kwargs)
            raise Unsupported(f"unsupported: {getattr(owner, '__name__', '?')}.{name} on {obj.describe()}",
                              kind="unsupported-call")
        from autograph.capture.families.sets import SetValue
        if owner in _SET_BASES and isinstance(obj, SetValue) and isinstance(obj.real, owner):
            return set_subclasses.native_method(tx, obj, obj, self.method, name, args, kwargs)
        table_method = getattr(obj, "table_method", None)  # dict's own, reached by super() (dict_subclass_objects.py)
        if table_method is not None:
            out = table_method(tx, owner, name, args, kwargs)
            if out is not NotImplemented:
                return out
        native_init = getattr(obj, "native_init", None)  # an exception's C __init__ (families/fresh.py)
        if name == "__init__" and native_init is not None:
            return native_init(tx, self.method, owner, args, kwargs)
        real = _real_or_none(obj)
        if real is not None and owner is not None and name in ("get", "keys", "__getitem__", "__contains__",
                                                               "__len__") and vb._all_constant(args, kwargs):
            # a read of a real dict (global registry, say): pinned by re-reading it in the guard
            real_args = [a.as_python_constant() for a in args]
            try:
                result = self.method(real, *real_args)
            except Exception as exc:  # noqa: BLE001 - raised natively after the break
                raise Unsupported(f"{name}() raised {type(exc).__name__}", generic=True, kind="python-exception")
            return tx.wrap(result, None, pin=lambda m=self.method, r=real, a=real_args: m(r, *a),
                           what=f"{type(real).__qualname__}.{name}{tuple(real_args)!r}")
        raise Unsupported(f"unsupported: {getattr(owner, '__name__', '?')}.{name} on {obj.describe()}",
                          kind="unsupported-call")


def _object_equality(tx, obj: Value, other: Value, name: str) -> Value:
    """``object.__eq__`` (identity, else NotImplemented) and ``object.__ne__`` (the inverse of
    the type's own ``__eq__``, interpreted when written in Python), as ``super().__ne__(o)`` reaches them."""
    from autograph.capture.families.rich_compare import _declined, _method
    if name == "__ne__":
        eq = _method(tx, obj, other, "__eq__")
        return eq if _declined(eq) else ConstantValue(not eq.truth(tx))
    same = vb.identical_or_none(tx, obj, other)
    if same is None:
        raise Unsupported(f"identity test between {obj.describe()} and {other.describe()}", kind="unsupported-operation")
    return ConstantValue(True if same else NotImplemented)


class UnboundNativeMethodValue(Value):
    """``object.__setattr__``, ``dict.__setitem__``… read from a class, called with the object first."""

    def __init__(self, method: Any, source=None):
        self.method = method
        self.source = source

    def describe(self):
        owner = getattr(self.method, "__objclass__", None)
        return f"{getattr(owner, '__name__', '?')}.{getattr(self.method, '__name__', '?')}"

    def real_value(self):
        return self.method

    def call(self, tx, args, kwargs):
        from autograph.capture.families.sets import SetValue
        if args and isinstance(args[0], (UserObjectValue, SetValue)):
            return NativeMethodValue(args[0], self.method, self.method.__name__).call(tx, list(args[1:]), kwargs)
        if args and args[0].is_constant() and type(args[0].as_python_constant()) is frozenset \
                and getattr(self.method, "__objclass__", None) is frozenset and not vb._all_constant(args, kwargs):
            return set_subclasses.constant_set_method(tx, args[0], self.method.__name__, list(args[1:]), kwargs)
        call_unbound = getattr(args[0], "call_unbound", None) if args else None
        if call_unbound is not None:  # a real container of stand-ins runs the real C method
            out = call_unbound(tx, self.method, list(args[1:]), kwargs)
            if out is not NotImplemented:
                return out
        if vb._all_constant(args, kwargs):
            try:
                return vb.fold(tx, self.method, args, kwargs, self.describe())
            except Unsupported as exc:  # it changes its argument or makes a new object
                if exc.kind not in ("side-effect", "fresh-object"):
                    raise
                out = call_as_bound(tx, self.method, args, kwargs)
                if out is NotImplemented:
                    raise
                return out
        out = call_as_bound(tx, self.method, args, kwargs)
        if out is not NotImplemented:
            return out
        raise Unsupported(f"unsupported: {self.describe()} on " + ", ".join(a.describe() for a in args),
                          kind="unsupported-call")

    def reconstruct(self, cg):
        return cg.const(self.method)


def _wrap_unbound(tx, obj, source):
    tx.guard_id(source, obj, pin=None)
    return UnboundNativeMethodValue(obj, source)


def _real_or_none(v: Value) -> Any:
    try:
        return v.real_value()
    except Unsupported:
        return None


_LIST_OPERATORS = {"+": "__add__", "+=": "__iadd__", "*": "__mul__", "*=": "__imul__"}


def _list_method(tx, obj: "UserObjectValue", name: str, args, kwargs) -> Value:
    """A ``list`` method on an instance of a list subclass: the list model's, on its items."""
    items = obj.items
    if name == "__init__":  # list.__init__(iterable=()): replaces the items
        if kwargs or len(args) > 1:
            raise Unsupported(f"list.__init__() of {obj.describe()} with these arguments", kind="unsupported-call")
        items.items.clear()
        if args:
            items.call_method(tx, "extend", args, {})
        return ConstantValue(None)
    out = items.call_method(tx, name, args, kwargs)
    return obj if out is items else out  # ``__iadd__``/``__imul__`` return the object itself


def _dict_method(tx, items: DictValue, name: str, args, kwargs) -> Value:
    if name == "__init__":
        if args:
            items.call_method(tx, "update", args, {})
        for k, v in kwargs.items():
            items.items[k] = v
        return ConstantValue(None)
    if name == "__getitem__":
        return items.getitem(tx, *args)
    if name == "__setitem__":
        items.setitem(tx, *args)
        return ConstantValue(None)
    if name == "__delitem__":
        items.delitem(tx, *args)
        return ConstantValue(None)
    if name == "__contains__":
        return items.contains(tx, *args)
    if name == "__len__":
        return ConstantValue(items.length(tx))
    if name == "__iter__":
        return items.get_iter(tx)
    return items.call_method(tx, name, args, kwargs)


# ---------------------------------------------------------------------------
# construction: ``cls(*args, **kwargs)`` for a user-defined class

def construct(tx, cls: type, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``type.__call__``: ``__new__`` (object's, dict's, list's, or the class's own Python code),
    then ``__init__`` when ``__new__`` made an instance of the class."""
    if not isinstance(cls, type) or cls.__module__ == "builtins":
        return NotImplemented
    reason = supported_class(cls)
    if reason is not None:
        raise Unsupported(f"unsupported: creating a {cls.__qualname__} object: {reason}", kind="object-construction")
    new = _python_new(cls)
    if new is not None:  # type.__call__: __new__, then __init__ when it made an instance of cls
        tx.guards.class_attr(cls, "__new__")
        obj = UserFunctionValue(new).call(tx, [tx.wrap(cls, None, trusted=True), *args], kwargs)
        made = obj.python_type()
        if not (isinstance(made, type) and issubclass(made, cls)):
            return obj
        cls = made
    elif issubclass(cls, _SET_BASES):
        obj = set_subclasses.new_instance(tx, cls, args, kwargs)
    elif issubclass(cls, _SCALAR_BASES):  # the base's own __new__ takes the value
        obj = scalar_subclasses.new_instance(tx, cls, args, kwargs)
    elif issubclass(cls, tuple):  # tuple's own __new__ takes the items
        obj = _tuple_new(tx, tx.wrap(cls, None, trusted=True), *args, **kwargs)
    else:
        obj = UserObjectValue(cls)
    init = _python_attr(cls, "__init__")
    if (new is not None or issubclass(cls, (frozenset, tuple) + _SCALAR_BASES)) and init is object.__init__:
        return obj  # object.__init__ ignores the arguments a __new__ of the class took
    if isinstance(init, types.FunctionType):
        tx.guards.class_attr(cls, "__init__")
        UserFunctionValue(init).call(tx, [obj, *args], kwargs)
    else:
        NativeMethodValue(obj, init, "__init__").call(tx, args, kwargs)
    return obj


# ---------------------------------------------------------------------------
# super()

super_type = super  # the builtin (this module registers a handler named ``_super``)


class SuperValue(Value):
    """``super(start, obj)``: attribute lookup in ``type(obj).__mro__`` after ``start``."""

    def __init__(self, start: type, obj: Value, obj_type: type, of_class: bool = False):
        self.start = start
        self.obj = obj
        self.obj_type = obj_type
        self.of_class = of_class  # super(C, cls): bound to a class (``__new__``, a classmethod's super())

    def describe(self):
        return f"super({self.start.__qualname__})"

    def python_type(self):
        return super_type

    def reconstruct(self, cg):
        """``super(start, obj)``: the same lookup object (it holds no state of its own)."""
        return f"{cg.const(super_type)}({cg.const(self.start)}, {cg.reconstruct(self.obj)})"

    def getattr(self, tx, name):
        mro = self.obj_type.__mro__
        try:
            rest = mro[mro.index(self.start) + 1:]
        except ValueError:
            raise Unsupported("TypeError: super(type, obj): obj must be an instance or subtype of type",
                              generic=True, kind="python-exception")
        from autograph.capture.families.absence import class_dict_source
        for klass in rest:
            stored = side_effects.pending(tx, klass, name)  # ``Cls.name = v`` earlier in this capture
            if stored is not None and stored is not side_effects.DELETED:
                return stored  # (a plain value: families/class_stores.py)
            if name in klass.__dict__:
                raw = klass.__dict__[name]
                if name == "__new__":  # a static method: never bound
                    return tx.wrap(raw.__func__ if isinstance(raw, staticmethod) else raw, None, trusted=True)
                return _bind_found_by_super(tx, self, klass, name, raw)
            if not klass.__flags__ & (1 << 8):  # a class that can still gain the name
                tx.guards.key_absent(class_dict_source(klass), name)
        err = AttributeError(f"'super' object has no attribute {name!r}")
        raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")


def _bind_found_by_super(tx, sup: SuperValue, klass: type, name: str, raw: Any) -> Value:
    """``raw.__get__(obj, obj_type)`` for the entry ``super().name`` found in ``klass``, as
    ``super.__getattribute__`` runs it: a classmethod binds to the type of the object super was
    given (``GrandChild``, not the class defining it), a property runs its getter on the object;
    with super bound to a class (``super().f()`` in a classmethod) the instance is None, so a
    function stays unbound and a classmethod binds to that class."""
    tx.guards.class_attr(klass, name)  # the entry found (the classes before it are guarded absent)
    of_class = sup.of_class
    if isinstance(raw, types.FunctionType):
        return UserFunctionValue(raw) if of_class else BoundMethodValue(UserFunctionValue(raw), sup.obj)
    if isinstance(raw, staticmethod):
        return tx.wrap(raw.__func__, None, trusted=True)
    if isinstance(raw, classmethod) and isinstance(raw.__func__, types.FunctionType):
        owner = sup.obj if of_class else tx.wrap(sup.obj_type, None, trusted=True)
        return BoundMethodValue(UserFunctionValue(raw.__func__), owner)
    if isinstance(raw, property) and not of_class and isinstance(raw.fget, types.FunctionType):
        return UserFunctionValue(raw.fget).call(tx, [sup.obj], {})
    if not of_class and type(raw).__name__ in ("method_descriptor", "wrapper_descriptor"):
        return NativeMethodValue(sup.obj, raw, name)
    if not hasattr(type(raw), "__get__"):  # a plain class attribute: the object itself
        return tx.wrap(raw, None, pin=lambda: klass.__dict__[name], what=f"{klass.__qualname__}.{name}")
    raise Unsupported(f"descriptor attribute `.{name}` of {klass.__qualname__} read through super()",
                      kind="unsupported-operation")


def _super(tx, *args):
    if len(args) == 2:
        start = args[0].real_value()
        obj = args[1]
    elif not args:
        frame = tx.frames[-1]
        cell = frame.cells.get("__class__")
        code = frame.code
        if cell is None or not code.co_argcount:
            raise Unsupported("RuntimeError: super(): no arguments", generic=True, kind="python-exception")
        start = cell.load(tx, "__class__").real_value()
        first = code.co_varnames[0]
        obj = frame.locals.get(first)
        if obj is None and first in frame.cells:
            obj = frame.cells[first].load(tx, first)
        if obj is None:
            raise Unsupported("RuntimeError: super(): arg[0] deleted", generic=True, kind="python-exception")
    else:
        raise Unsupported("super() with one argument", kind="unsupported-operation")
    real = _class_of(obj) if isinstance(obj.python_type(), type) and issubclass(obj.python_type(), type) else None
    if isinstance(real, type) and isinstance(start, type) and issubclass(real, start):
        return SuperValue(start, obj, real, of_class=True)  # super(C, cls) in ``__new__``
    obj_type = obj.python_type()
    return SuperValue(start, obj, obj_type)


def _class_of(v: Value) -> Any:
    try:
        return v.real_value()
    except Unsupported:
        return None


def _list_new(tx, *args: Value, **kwargs: Value) -> Value:
    """``list.__new__(cls, ...)``: an empty list of ``cls`` (further arguments are ignored, as
    ``list.__new__`` ignores them: ``list.__init__`` fills the list)."""
    cls = _class_of(args[0]) if args else None
    if cls is list:
        return ListValue([])
    if isinstance(cls, type) and issubclass(cls, list) and supported_class(cls) is None:
        return UserObjectValue(cls)
    raise Unsupported("list.__new__() with these arguments", kind="unsupported-call")


def _object_new(tx, *args: Value, **kwargs: Value) -> Value:
    """``object.__new__(cls)`` for a class capture models."""
    cls = _class_of(args[0]) if args else None
    if len(args) == 1 and not kwargs and isinstance(cls, type) and cls.__module__ != "builtins" \
            and supported_class(cls) is None and not issubclass(cls, _SET_BASES + (tuple,)):  # ("not safe")
        return UserObjectValue(cls)
    raise Unsupported("object.__new__() with these arguments", kind="unsupported-call")


def _tuple_new(tx, *args: Value, **kwargs: Value) -> Value:
    """``tuple.__new__(cls, iterable=())``: the tuple of the iterable's items; for a subclass
    ``cls`` capture models, an instance of it holding them (its items are fixed here)."""
    from autograph.capture.families.containers import TupleValue
    from autograph.capture.families.iterators import iterator_of
    cls = _class_of(args[0]) if args else None
    subclass = isinstance(cls, type) and issubclass(cls, tuple) and cls is not tuple \
        and cls.__module__ != "builtins" and supported_class(cls) is None
    if (cls is tuple or subclass) and kwargs and _python_attr(cls, "__init__") is object.__init__:
        err = TypeError("tuple() takes no keyword arguments")  # (a class's own __init__ takes them)
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
    if (cls is tuple or subclass) and len(args) <= 2:
        items = TupleValue(iterator_of(tx, args[1]).iter_items(tx) if len(args) == 2 else [])
        if cls is tuple:
            return items
        obj = UserObjectValue(cls)
        obj.items = items
        return obj
    from autograph.capture.families.named_tuples import NamedTupleValue, is_named_tuple_class, is_structseq, made_class
    if is_named_tuple_class(cls) and not is_structseq(cls) and len(args) == 2 and not kwargs:
        # a namedtuple's ``_make``/``_replace``: an instance holding the iterable's items (any
        # number: ``_make`` checks the count itself)
        return NamedTupleValue(cls, list(iterator_of(tx, args[1]).iter_items(tx)), made=made_class(tx, cls))
    raise Unsupported("tuple.__new__() with these arguments", kind="unsupported-call")


def install() -> None:
    """User classes are the fallback of every class call: this family installs last."""
    registry.register_builtin(list.__new__, _list_new)
    registry.register_builtin(tuple.__new__, _tuple_new)
    registry.register_builtin(object.__new__, _object_new)
    for method in (object.__setattr__, dict.get):  # wrapper_descriptor, method_descriptor
        registry.register_type_wrapper(type(method), _wrap_unbound, replace=False)
    registry.register_builtin(super, _super)
    registry.add_class_call_hook(construct, first=False)
