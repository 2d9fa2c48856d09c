"""Named tuples: ``collections.namedtuple``/``typing.NamedTuple`` classes and structseqs
(``torch.return_types.max``, ``os.stat_result``), as results of torch ops, as inputs, and
constructed in compiled code.

A :class:`NamedTupleValue` is a tuple whose class is kept: field names resolve through the
class's own descriptors (their index is read off a probe instance of the real class),
methods of the class bind to the value and are inlined, tuple operations give plain tuples
as they do in Python, and at a break or return the object is rebuilt with its class.
Tuple subclasses that change tuple's behaviour (``__getitem__``, ``__iter__``...) are not
modelled.
"""
from __future__ import annotations

import collections
import inspect
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import TupleValue

_TUPLE_BEHAVIOUR = ("__getitem__", "__len__", "__iter__", "__contains__", "__eq__", "__hash__", "__add__",
                    "__mul__", "__getattribute__", "__getattr__", "__bool__")
_FIELD_DESCRIPTORS = ("_tuplegetter", "member_descriptor")


def is_structseq(cls: type) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "n_sequence_fields")


def is_named_tuple_class(cls: Any) -> bool:
    """A namedtuple class or structseq whose instances behave as plain tuples."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and cls is not tuple):
        return False
    if not (is_structseq(cls) or isinstance(getattr(cls, "_fields", None), tuple)):
        return False
    return all(mro_lookup(cls, name)[0] in (tuple, object, None) for name in _TUPLE_BEHAVIOUR)


_PROBES: dict[type, Any] = {}


def _probe(cls: type) -> Any:
    """A real instance of ``cls`` whose items are their own indices."""
    if cls not in _PROBES:
        n = cls.n_sequence_fields if is_structseq(cls) else len(cls._fields)
        _PROBES[cls] = cls(tuple(range(n))) if is_structseq(cls) else tuple.__new__(cls, range(n))
    return _PROBES[cls]


def field_index(cls: type, name: str) -> int | None:
    klass, raw = mro_lookup(cls, name)
    if klass is None or klass in (tuple, object) or type(raw).__name__ not in _FIELD_DESCRIPTORS:
        return None
    if uncreatable(cls):  # no probe can be made: the field names, when every field has one
        names = getattr(cls, "__match_args__", ())
        return names.index(name) if len(names) == cls.n_sequence_fields and name in names else None
    value = getattr(_probe(cls), name, None)
    return value if type(value) is int else None


def uncreatable(cls: type) -> bool:
    """A structseq Python cannot make (``sys.version_info``, ``sys.flags``: ``cannot create``)."""
    return is_structseq(cls) and getattr(cls, "__new__", None) is tuple.__new__


def _rebuild(cls: type, items: tuple) -> tuple:
    """The real object for a modelled one (called by the transformed code)."""
    return cls(items) if is_structseq(cls) else tuple.__new__(cls, items)


class NamedTupleValue(TupleValue):
    def __init__(self, cls: type, items, source=None, made: "MadeNamedTupleClass | None" = None,
                 real: tuple | None = None):
        super().__init__(items, source)
        self.cls = cls
        self.made = made  # the class was made by this call (collections.namedtuple in the function)
        self.real = real  # the object read from outside (``sys.version_info``: no new one can be made)

    def describe(self) -> str:
        return f"{self.cls.__qualname__} of {len(self.items)}"

    def python_type(self) -> type:
        return self.cls

    def as_python_constant(self) -> Any:
        items = tuple(i.as_python_constant() for i in self.items)
        if self.real is not None and uncreatable(self.cls):
            return self.real  # the one read: no other can be made
        return _rebuild(self.cls, items)

    def getattr(self, tx, name: str):
        index = field_index(self.cls, name)
        if index is not None:
            return self.items[index]
        if name == "__class__" and self.made is not None:
            return self.made
        klass, raw = mro_lookup(self.cls, name)
        if klass is None:
            from autograph.capture.families.absence import guard_absent_in_classes
            guard_absent_in_classes(tx, self.cls, name)  # the class could gain it later
            err = AttributeError(f"{self.cls.__qualname__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")
        if klass is tuple or klass is object:
            return super().getattr(tx, name)
        from autograph.capture.families.user_objects import _bind_class_attr
        return _bind_class_attr(tx, self, self.cls, name, raw)

    def getitem(self, tx, key):
        return TupleValue(self.items).getitem(tx, key)  # a slice of a named tuple is a plain tuple

    def binary_op(self, tx, op: str, other):
        if op in ("+", "+=", "*", "*=") and isinstance(other, TupleValue):
            return TupleValue(self.items).binary_op(tx, op.rstrip("="), TupleValue(other.items))
        if op in ("*", "*="):
            return TupleValue(self.items).binary_op(tx, "*", other)
        return NotImplemented

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        items = "(" + "".join(cg.reconstruct(i) + ", " for i in self.items) + ")"
        cls = cg.reconstruct(self.made) if self.made is not None else cg.const(self.cls)
        return f"{cg.const(_rebuild)}({cls}, {items})"


def _construct(tx, cls: Any, args, kwargs):
    """``CLASS_CALL_HOOKS`` entry: a namedtuple class whose ``__new__`` is the generated one
    (it binds the fields, defaults included, then ``tuple.__new__``) and ``__init__`` is object's."""
    if not is_named_tuple_class(cls) or is_structseq(cls):
        return NotImplemented
    new = mro_lookup(cls, "__new__")[1]
    new = getattr(new, "__func__", new)  # stored as a staticmethod by some Python versions
    if mro_lookup(cls, "__init__")[0] is not object or not _generated_new(new):
        return NotImplemented
    try:
        bound = inspect.signature(new).bind(cls, *args, **kwargs)
    except TypeError as exc:
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
    bound.apply_defaults()
    made = made_class(tx, cls)
    if made is None:
        tx.guards.class_attr(cls, "__new__")
    values = list(bound.arguments.values())[1:]
    return NamedTupleValue(cls, [_field_value(v) for v in values], made=made)


def _generated_new(new: Any) -> bool:
    """``collections.namedtuple``'s generated ``__new__``: it only calls ``tuple.__new__``."""
    return getattr(getattr(new, "__globals__", None), "get", lambda _: None)("_tuple_new") is tuple.__new__


def _field_value(v: Any):
    from autograph.capture.core.base import Value
    from autograph.capture.core.constants import is_literal
    if isinstance(v, Value):
        return v
    if is_literal(v):  # a default of the generated __new__
        return ConstantValue(v)
    raise Unsupported(f"namedtuple default {type(v).__name__} (not a constant)", kind="unsupported-operation")


class MadeNamedTupleClass(Value):
    """A class ``collections.namedtuple(...)`` made in the function: Python makes a new class on
    every call. Capture runs the real factory once on the same constant arguments (the module name
    eager would give it included) to model instances; at a break or return the transformed code
    calls the factory again, so each call's objects have that call's own class."""

    def __init__(self, cls: type, args: tuple, kwargs: dict):
        self.cls = cls
        self.args = args
        self.kwargs = kwargs

    def describe(self):
        return f"namedtuple class {self.cls.__qualname__} (made during capture)"

    def python_type(self):
        return type(self.cls)

    def real_value(self):
        return self.cls

    def call(self, tx, args, kwargs):
        out = _construct(tx, self.cls, args, kwargs)
        if out is NotImplemented:
            raise Unsupported(f"constructing {self.describe()}", kind="object-construction")
        return out

    def getattr(self, tx, name):
        if name in ("_fields", "_field_defaults", "__name__", "__qualname__", "__module__", "__doc__"):
            return tx.wrap(getattr(self.cls, name), None, trusted=True)
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        parts = [cg.const(a) for a in self.args] + [f"{k}={cg.const(v)}" for k, v in self.kwargs.items()]
        return cg.shared(self, f"{cg.const(collections.namedtuple)}({', '.join(parts)})")


# class -> MadeNamedTupleClass: the namedtuple classes made during this capture
MADE_NAMEDTUPLE_CLASSES = registry.state_slot("made_namedtuple_classes", dict, __name__)


def made_class(tx, cls: type) -> MadeNamedTupleClass | None:
    made = MADE_NAMEDTUPLE_CLASSES.peek(tx)
    return made.get(cls) if made else None


def _namedtuple_factory(tx, *args, **kwargs):
    """``collections.namedtuple(...)`` on constants: a :class:`MadeNamedTupleClass`."""
    if not all(a.is_constant() for a in (*args, *kwargs.values())):
        raise Unsupported("collections.namedtuple() with arguments that are not constants", kind="object-construction")
    real_args = tuple(a.as_python_constant() for a in args)
    real_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
    if real_kwargs.get("module") is None:  # eager names the calling frame's module
        real_kwargs["module"] = tx.frames[-1].fn_globals.get("__name__", "__main__")
    try:
        cls = collections.namedtuple(*real_args, **real_kwargs)
    except (TypeError, ValueError) as exc:
        raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")
    made = MadeNamedTupleClass(cls, real_args, real_kwargs)
    MADE_NAMEDTUPLE_CLASSES.of(tx)[cls] = made
    return made


def install() -> None:
    registry.add_class_call_hook(_construct)
    registry.register_builtin(collections.namedtuple, _namedtuple_factory)
