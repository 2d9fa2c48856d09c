"""Instances of user subclasses of ``int``, ``float`` and ``str`` made during the call.

Strategy: *rebuild*, as for list/tuple/set subclasses (families/user_objects.py): such an object
is a ``UserObjectValue`` whose ``items`` is the constant its C base holds (``int.__new__(cls,
5)`` stores 5), with an instance ``__dict__`` of its own. Where the class keeps its base's C
entry -- an operator, a comparison, truth, ``len``, a method called through the class
(``int.__hash__(self)``) -- the base's real operation runs on that constant (the result is the
base type, as CPython's C code makes it); wherever the class has Python code of its own, that code
runs (``user_operators``, ``interpreted_keys`` for a Python ``__hash__``). The transformed code
rebuilds the object with ``base.__new__(cls, value)`` and its ``__dict__``. Anything else (the
object as a torch argument, an index, ``int(obj)``) is not modelled and breaks.
"""
from __future__ import annotations

from typing import Any

from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue

SCALAR_BASES = (int, float, str)

# operator symbol -> the name of its special method (``a + b`` is ``__add__``, reflected ``__radd__``)
_OPERATOR_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
                   "**": "pow", "<<": "lshift", ">>": "rshift", "&": "and", "|": "or", "^": "xor", "@": "matmul"}
_COMPARISON_NAMES = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}


def base_of(cls: type) -> type | None:
    """The builtin scalar type ``cls`` derives from (None for other classes)."""
    return next((b for b in cls.__mro__ if b in SCALAR_BASES), None)


def scalar_items(value: Value) -> ConstantValue | None:
    """The base value of an instance of a scalar subclass made during capture (else None)."""
    cls = getattr(value, "cls", None)
    items = getattr(value, "items", None)
    if isinstance(cls, type) and base_of(cls) is not None and isinstance(items, ConstantValue):
        return items
    return None


def refuse_as_container(value: Value) -> None:
    """Indexing, ``len``, iteration or ``in`` of an int/float subclass instance: Python's error names
    the subclass (the base value's would name ``int``), so Python raises it. A str subclass's are str's."""
    items = scalar_items(value)
    if items is not None and not isinstance(items.as_python_constant(), str):
        raise Unsupported(f"{value.describe()} used as a container (Python raises the error)",
                          kind="unsupported-operation")


def _base_run(tx, what: str, run) -> Value:
    """The base's operation on the base values; an exception it raises may name the base type where
    Python names the subclass, so the operation runs in Python instead."""
    try:
        return run()
    except Unsupported as exc:
        if exc.exc is None:
            raise
        raise Unsupported(f"{what} raises {type(exc.exc).__name__} (Python raises it)",
                          kind="python-exception") from None


def _keeps(cls: type, name: str) -> bool:
    """``cls.name`` is its scalar base's own C entry."""
    return mro_lookup(cls, name)[0] in SCALAR_BASES


def new_instance(tx, cls: type, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``base.__new__(cls, *args)``: the base value made by the base's real constructor from
    constant arguments, held by a new instance of ``cls``."""
    from autograph.capture.families.user_objects import UserObjectValue
    from autograph.capture.families.builtins import _all_constant, fold
    base = base_of(cls)
    if not _all_constant(args, kwargs):
        raise Unsupported(f"creating a {cls.__qualname__} from values that are not constants",
                          kind="object-construction")
    made = _base_run(tx, f"creating a {cls.__qualname__}", lambda: fold(tx, base, args, kwargs, base.__name__))
    obj = UserObjectValue(cls)
    obj.items = ConstantValue(made.as_python_constant())
    return obj


def native_method(tx, obj: Value, method: Any, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """A C method of the base called on the object (``int.__hash__(self)``, ``self.upper()``):
    run for real on the base value with constant arguments."""
    from autograph.capture.families.builtins import _all_constant, fold
    items = scalar_items(obj)
    if items is None or not _all_constant(args, kwargs):
        raise Unsupported(f"{name} of {obj.describe()} with these arguments", kind="unsupported-call")
    return _base_run(tx, f"{name} of {obj.describe()}", lambda: fold(tx, method, [items, *args], kwargs, name))


def _operand(value: Value, name: str) -> Value | None:
    """What the base's C operator sees of ``value``: a constant itself, a scalar-subclass
    instance its base value when its class keeps the base's ``name``; None otherwise."""
    if value.is_constant():
        return value
    items = scalar_items(value)
    if items is not None and _keeps(value.cls, name):
        return items
    return None


def binary_op(tx, obj: Value, op: str, other: Value, *, reflected: bool) -> Any:
    """``obj <op> other`` (``other <op> obj`` when ``reflected``) where the class keeps its base's
    C operator: the base operation on the base values (NotImplemented when it does not apply)."""
    from autograph.capture.families import builtins as vb
    base_op = op[:-1] if op.endswith("=") and op[:-1] in _OPERATOR_NAMES else op
    short = _OPERATOR_NAMES.get(base_op)
    if short is None:
        return NotImplemented
    if op != base_op and mro_lookup(obj.cls, f"__i{short}__")[0] is not None:
        return NotImplemented  # an in-place operator of its own (Python code runs elsewhere)
    mine = _operand(obj, f"__r{short}__" if reflected else f"__{short}__")
    theirs = _operand(other, f"__{short}__" if reflected else f"__r{short}__")
    if mine is None or theirs is None:
        return NotImplemented
    left, right = (theirs, mine) if reflected else (mine, theirs)
    return _base_run(tx, f"{op} of {obj.describe()}", lambda: vb.binary_op(tx, base_op, left, right))


def compare_op(tx, obj: Value, op: str, other: Value) -> Any:
    from autograph.capture.families import builtins as vb
    name = _COMPARISON_NAMES.get(op)
    if name is None:
        return NotImplemented
    mine = _operand(obj, name)
    theirs = _operand(other, name.replace("__l", "__g") if name.startswith("__l") else
                      name.replace("__g", "__l") if name.startswith("__g") else name)
    if mine is None or theirs is None:
        return NotImplemented
    return _base_run(tx, f"{op} of {obj.describe()}", lambda: vb.compare(tx, mine, op, theirs))


def truth(obj: Value) -> bool | None:
    """``bool(obj)`` when the class keeps its base's truth (``__bool__``/``__len__``)."""
    items = scalar_items(obj)
    if items is None or not (_keeps(obj.cls, "__bool__") or _keeps(obj.cls, "__len__")):
        return None
    return bool(items.as_python_constant())
