"""Instances of ``set``/``frozenset`` subclasses made during capture, and set's C methods called
through the class (``set.add(s, x)``, ``CustomSet.__or__(p, q)``) or as bound dunders.

An instance is a ``UserObjectValue`` (families/user_objects.py: attributes, ``__new__``/``__init__``,
methods written in Python, all interpreted) whose ``items`` is the ``SetValue`` of its table.
CPython's set code treats a subclass instance as a set: an inherited C method or operator reads
the table directly (never a Python ``__iter__``) and returns the *base* type (``CustomSet | s`` is
a plain ``set``; ``CustomFrozenset.copy()`` a new plain ``frozenset``). So an inherited operation
runs sets.py's real set operation on the items, and its result is what sets.py gives for the base
type. Wherever the class overrides the operation in Python, its own code decides: the set model
declines (``NotImplemented``) and the user-object protocol, or a graph break, takes over.
"""
from __future__ import annotations

from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.set_rebuild_order import filled_recipe, insertion_order
from autograph.capture.families.sets import SET_HISTORY, SetValue, _keys_of, check_iterable, key_of, scalar_operand_error, value_of

SET_BASES = (set, frozenset)
_COMPARISONS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")
_COMPARE_OPS = {"__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}
_OPERATOR_DUNDERS = {"|": "__or__", "&": "__and__", "-": "__sub__", "^": "__xor__"}
_BINARY_DUNDERS = {"__or__": "|", "__and__": "&", "__sub__": "-", "__xor__": "^",
                   "__ror__": "|", "__rand__": "&", "__rsub__": "-", "__rxor__": "^"}
_INPLACE_DUNDERS = {"__ior__": "|=", "__iand__": "&=", "__isub__": "-=", "__ixor__": "^="}
_TEXT_DUNDERS = ("__repr__", "__str__", "__format__")


class _SetProbe(set):
    """A subclass with no code of its own: a set table filled the way a subclass's is."""


class _FrozensetProbe(frozenset):
    """As :class:`_SetProbe`, for frozenset subclasses."""


def set_items(value: Value) -> SetValue | None:
    """The items of an instance of a set/frozenset subclass made during capture (else None)."""
    items = getattr(value, "items", None)
    return items if isinstance(items, SetValue) and getattr(value, "cls", None) is not None else None


def _c_entry(tx, cls: type, name: str) -> bool:
    """``cls.name`` is set's/frozenset's/object's own C entry (guarded: the class keeps it)."""
    owner = mro_lookup(cls, name)[0]
    tx.guards.class_attr(cls, name)
    return owner in SET_BASES or owner is object


def plain_operand(tx, value: Value, names: tuple[str, ...]) -> bool:
    """``value`` is a set-subclass instance whose class keeps set's C entries for ``names``:
    Python's operator dispatch then reaches only set's C code, which reads the table."""
    return set_items(value) is not None and all(_c_entry(tx, value.cls, n) for n in names)


def operand_keys(tx, value: Value, names: tuple[str, ...]) -> Any:
    """The real keys of a set-like operand of a set operator or comparison; None when ``value``
    is a set-subclass instance whose class overrides one of ``names`` in Python."""
    items = set_items(value)
    if items is not None:
        return items.real if plain_operand(tx, value, names) else None
    return _keys_of(tx, value, sets_only=True)


def lookup_key(tx, value: Value) -> Any:
    """The key ``x in s``, ``s.remove(x)``, ``s.discard(x)`` look up: a ``set`` (unhashable) is
    retried as the frozenset of its items, as CPython's set_contains/remove/discard do; a
    frozenset-subclass instance keeping frozenset's ``__hash__``/``__eq__`` hashes and compares
    as the frozenset of its items."""
    items = set_items(value)
    if items is not None and all(_c_entry(tx, value.cls, n) for n in ("__hash__", "__eq__")):
        return frozenset(items.real)
    if isinstance(value, SetValue) and value.kind is set:
        return frozenset(value.real)
    return key_of(value, tx, interpret=False)


def rebuild_source(items: SetValue) -> Any:
    """A real object ``base.__new__``/``set.__init__`` fill a subclass's table from exactly as
    the model's table iterates (families/user_objects.py ``_rebuild``)."""
    if items.has_identity_keys():
        return None
    probe = _SetProbe if items.kind is set else _FrozensetProbe
    if items.order_known:
        for obj in (frozenset(items.real), tuple(items.real)):
            if list(probe(obj)) == list(items.real):
                return obj
        order = insertion_order(items.real, probe)
        if order is not None:
            return order
        recipe = filled_recipe(items.real) if items.kind is set else None
        if recipe is not None and list(recipe.fill(_SetProbe())) == list(items.real):
            return recipe  # (``_rebuild`` fills the instance's table by it)
    raise Unsupported(f"a {items.describe()} whose order no rebuilt set reproduces, live at a graph break",
                      kind=SET_HISTORY)


def items_text(cg, items: SetValue) -> str:
    """The transformed code's expression for the object ``_rebuild`` fills the table from."""
    source = rebuild_source(items)
    if source is not None:
        return cg.const(source)
    from autograph.capture.families.interpreted_keys import refuse_rebuild
    refuse_rebuild(items.real)
    return "(" + "".join(cg.reconstruct(value_of(k)) + ", " for k in items.real) + ")"


def text_object(tx, obj: Value) -> Any:
    """A real object printing as ``obj`` does (``CustomSet({'a'})``) when its class prints with
    set's C code; None otherwise."""
    items = set_items(obj)
    if items is None or items.has_identity_keys() or not items.order_known:
        return None
    if not all(_c_entry(tx, obj.cls, n) for n in _TEXT_DUNDERS):
        return None
    name = obj.cls.__name__  # set_repr: the type's name, then the items in iteration order
    return _SetText(f"{name}({{{repr(list(items.real))[1:-1]}}})" if items.real else f"{name}()", name)


class _SetText:
    """Prints as set's C ``__repr__`` prints a subclass instance (``str``, ``repr``, ``format``
    with an empty spec; another spec is object.__format__'s TypeError)."""

    def __init__(self, text: str, name: str):
        self.text, self.name = text, name

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:
            raise TypeError(f"unsupported format string passed to {self.name}.__format__")
        return self.text


# ---------------------------------------------------------------------------
# construction

def _arity_error(cls: type, args: list[Value], kwargs: dict[str, Value], base: type) -> None:
    if kwargs:
        err = TypeError(f"{base.__name__}() takes no keyword arguments")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
    if len(args) > 1:
        err = TypeError(f"{cls.__name__} expected at most 1 argument, got {len(args)}")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")


def _fill(tx, items: SetValue, source: Value) -> None:
    """``set_update_internal``: a set operand's table (its order), else the iterable's items."""
    from autograph.capture.families.sets import _exact_dict_keys
    other = source if isinstance(source, SetValue) else set_items(source)
    if other is not None:
        if len(other.real) > 1:
            other.iter_items(tx)  # its order must be known
        items.real = items.kind(other.real)
        items.order_known = other.order_known
        return
    exact = _exact_dict_keys(source)
    check_iterable(source)
    keys = exact if exact is not None else [key_of(v, tx, interpret=False) for v in source.iter_items(tx)]
    items.real = items.kind(keys)


def new_instance(tx, cls: type, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``set.__new__(cls, ...)`` (an empty table: ``set.__init__`` fills it) or
    ``frozenset.__new__(cls, iterable=())`` (filled now: a frozenset never changes after)."""
    from autograph.capture.families.user_objects import UserObjectValue, supported_class
    reason = supported_class(cls)
    if reason is not None:
        raise Unsupported(f"unsupported: creating a {cls.__qualname__} object: {reason}", kind="object-construction")
    obj = UserObjectValue(cls)
    if issubclass(cls, frozenset):
        if mro_lookup(cls, "__init__")[1] is object.__init__:  # frozenset_new's own check
            _arity_error(cls, args, kwargs, frozenset)
        _arity_error(cls, args, {}, frozenset)
        if args:
            _fill(tx, obj.items, args[0])
    return obj


def _base_new(base: type):
    def handler(tx, *args: Value, **kwargs: Value) -> Value:
        cls = args[0].real_value() if args else None
        if cls is base:  # ``set.__new__(set)``: the builtin's own construction
            if base is set:
                return SetValue([], set)
            from autograph.capture.families.sets import _construct
            return _construct(frozenset)(tx, *args[1:], **kwargs)
        if isinstance(cls, type) and issubclass(cls, base) and cls.__module__ != "builtins":
            return new_instance(tx, cls, list(args[1:]), kwargs)
        raise Unsupported(f"{base.__name__}.__new__() with these arguments", kind="unsupported-call")
    return handler


# ---------------------------------------------------------------------------
# set's C methods on an instance (of a subclass, or a plain set through the class)

def native_method(tx, obj: Value, items: SetValue, method: Any, name: str, args: list[Value],
                  kwargs: dict[str, Value]) -> Value:
    """``set.<name>(obj, *args)`` for the C method ``method``: the set model's operation on the
    items (a plain set's ``obj`` is its items); an in-place result is ``obj`` itself."""
    if name == "__init__":
        if not isinstance(items.real, set):
            raise Unsupported(f"set.__init__ on {obj.describe()}", kind="unsupported-call")
        _arity_error(obj.python_type(), args, kwargs, set)
        items.real = set()
        items.order_known = True
        if args:
            _fill(tx, items, args[0])
        return ConstantValue(None)
    if kwargs:
        try:
            method(items.kind(), *[None] * len(args), **{k: None for k in kwargs})
        except TypeError as exc:
            raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
        raise Unsupported(f"{name}() with keyword arguments", kind="unsupported-call")
    if name == "__contains__" and len(args) == 1:
        return items.contains(tx, args[0])
    if name == "__len__" and not args:
        return ConstantValue(len(items.real))
    if name == "__iter__" and not args:
        return items.get_iter(tx)
    if name in _COMPARE_OPS and len(args) == 1:
        keys = _real_operand(tx, args[0])
        return ConstantValue(NotImplemented if keys is None else getattr(items.real, name)(keys))
    if name in _BINARY_DUNDERS and len(args) == 1:
        keys = _real_operand(tx, args[0])
        if keys is None:
            return ConstantValue(NotImplemented)
        out = getattr(items.real, name)(keys)
        from autograph.capture.families.sets import _wrap_result
        return ConstantValue(NotImplemented) if out is NotImplemented else _wrap_result(out, items.order_known)
    if name in _INPLACE_DUNDERS and len(args) == 1:
        if _real_operand(tx, args[0]) is None:
            return ConstantValue(NotImplemented)
        out = items.binary_op(tx, _INPLACE_DUNDERS[name], args[0])
        return obj if out is items else out
    if name.startswith("__"):
        raise Unsupported(f"{type(items.real).__name__}.{name} on {obj.describe()}", kind="unsupported-call")
    out = items.call_method(tx, name, args, {})
    return obj if out is items else out


def constant_set_method(tx, const: Value, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """A method of a frozenset constant given a set made in the function (``fs.__eq__(s)``, ``fs.union(s)``)."""
    real = const.as_python_constant()
    method = getattr(type(real), name, None)
    if method is None or type(method).__name__ not in ("wrapper_descriptor", "method_descriptor"):
        raise Unsupported(f"method .{name}() of {const.describe()}", kind="unsupported-call")
    return native_method(tx, const, SetValue(real, type(real)), method, name, args, kwargs)


def _real_operand(tx, value: Value) -> Any:
    """The real keys of a set operand of a C set dunder called directly (any set subclass: the
    C code reads the table); None for a non-set (the dunder answers NotImplemented)."""
    items = set_items(value)
    if items is not None:
        return items.real
    try:
        return _keys_of(tx, value, sets_only=True)
    except Unsupported:
        return None


# ---------------------------------------------------------------------------
# operators and comparisons of a subclass instance (UserObjectValue delegates here)

def binary_op(tx, obj: Value, op: str, other: Value) -> Value:
    """``obj <op> other`` with ``obj`` on the left, when its class keeps set's C operator."""
    items = set_items(obj)
    base = op.rstrip("=")
    name = _OPERATOR_DUNDERS.get(base)
    if name is None:
        return NotImplemented
    names = (name, "__r" + name[2:]) + (("__i" + name[2:],) if op.endswith("=") else ())
    if not plain_operand(tx, obj, names):
        return NotImplemented
    if not op.endswith("=") and set_items(other) is not None and other.cls is not obj.cls \
            and issubclass(other.cls, obj.cls) and not plain_operand(tx, other, names):
        return NotImplemented  # the right operand's own reflected method would run first
    if set_items(other) is not None and not op.endswith("="):
        if not plain_operand(tx, other, names):
            return NotImplemented
    scalar_operand_error(op, obj.cls, other)
    out = items.binary_op(tx, op if obj.items.mutable else base, _as_set(other))
    return obj if out is items else out


def rbinary_op(tx, obj: Value, op: str, other: Value) -> Value:
    """``other <op> obj`` after the left operand declined: set's reflected C slot."""
    name = _OPERATOR_DUNDERS.get(op)
    if name is None or not plain_operand(tx, obj, (name, "__r" + name[2:])):
        return NotImplemented
    return obj.items.rbinary_op(tx, op, _as_set(other))


def compare_op(tx, obj: Value, op: str, other: Value) -> Value:
    """``obj <op> other`` when neither operand's class compares in Python: set's comparison."""
    if not plain_operand(tx, obj, _COMPARISONS):
        return NotImplemented
    if set_items(other) is not None and not plain_operand(tx, other, _COMPARISONS):
        return NotImplemented
    return obj.items.compare_op(tx, op, _as_set(other))


def _as_set(value: Value) -> Value:
    """A plain-operand subclass instance stands for its items in sets.py's operations."""
    items = set_items(value)
    return items if items is not None else value


def install() -> None:
    registry.register_builtin(set.__new__, _base_new(set))
    registry.register_builtin(frozenset.__new__, _base_new(frozenset))
