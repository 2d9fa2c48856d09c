"""``a + b``, ``a |= b``… when a user class defines the operator in Python (``__add__``,
``__radd__``, ``__iadd__``; ``collections.abc.Set``'s ``__or__``, an OrderedSet's ``__ior__``).

CPython's ``binary_op1``/``binary_iop1`` on classes written in Python, interpreted: for
``a op= b`` the left operand's ``__iop__`` first; then, when the right operand's type is a proper
subclass of the left one's and overrides ``__rop__``, that first; then the left operand's
``__op__``, then the right one's ``__rop__``; a method answering ``NotImplemented`` passes the
turn; when all decline, Python's TypeError. Only operands whose every method on the way is
known take this path: an object made during capture (its class's entries: Python functions,
inlined; set's C methods, modelled by families/set_subclasses.py; absent or ``object``'s: decline),
a set, or a number/str/bytes/None constant (whose C slots decline a user object). Anything
else is left to the other models (or a break).
"""
from __future__ import annotations

import types
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value, mro_lookup

_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
          "@": "matmul", "&": "and", "|": "or", "^": "xor", "<<": "lshift", ">>": "rshift"}
# (not str/bytes: ``%`` formats, and ``+``/``*`` try their sequence slots after the number slots)
_DECLINING_CONSTANTS = (int, float, complex, bool, type(None))
_SET_BASES = (set, frozenset)
_UNKNOWN = object()  # a method this module does not model


def _lookup(tx, v: Value, dunder: str) -> Any:
    """What calling ``type(v).<dunder>`` means: a Python function, ``("set", wrapper)`` for set's
    C method, None when absent or declining, ``_UNKNOWN`` otherwise (guarded on the class)."""
    from autograph.capture.families.sets import SetValue
    if _is_user_object(v):
        cls = v.python_type()
        owner, raw = mro_lookup(cls, dunder)
        if owner is None:
            from autograph.capture.families.absence import guard_absent_in_classes
            guard_absent_in_classes(tx, cls, dunder)
            return None
        tx.guards.class_attr(cls, dunder)
        if type(raw) is types.FunctionType:
            return raw
        if owner in _SET_BASES and getattr(getattr(v, "items", None), "kind", None) in _SET_BASES:
            return ("set", raw)
        return None if owner is object else _UNKNOWN
    if isinstance(v, SetValue):
        raw = getattr(v.kind, dunder, None)
        return None if raw is None else ("set", raw)
    if v.is_constant() and not v.mutable and type(v.as_python_constant()) in _DECLINING_CONSTANTS:
        return None  # int/str/... C slots return NotImplemented for a user object
    return _UNKNOWN


def _is_user_object(v: Value) -> bool:
    """An object made during capture, or one from outside (type-guarded) of a class written in Python."""
    from autograph.capture.families.objects import ObjectValue
    from autograph.capture.families.user_objects import UserObjectValue
    if isinstance(v, UserObjectValue):
        return True
    cls = v.python_type() if type(v) is ObjectValue else None
    return isinstance(cls, type) and type(cls) is type and cls.__module__ != "builtins" \
        and not cls.__module__.startswith("torch")


def _call(tx, method: Any, this: Value, other: Value, dunder: str) -> Value:
    if type(method) is types.FunctionType:
        from autograph.capture.families.functions import UserFunctionValue
        return UserFunctionValue(method).call(tx, [this, other], {})
    from autograph.capture.families.set_subclasses import native_method
    items = getattr(this, "items", this)
    return native_method(tx, this, items, method[1], dunder, [other], {})


def _declined(out: Value) -> bool:
    return out.is_constant() and out.as_python_constant() is NotImplemented


def binary_op(tx, op: str, a: Value, b: Value) -> Value:
    """``a <op> b`` by the operand classes' own methods; NotImplemented when this module does not
    apply (no Python method among them, or an operand it does not model)."""
    if not (_is_user_object(a) or _is_user_object(b)):
        return NotImplemented
    base = op[:-1] if op.endswith("=") and op[:-1] in _NAMES else op
    word = _NAMES.get(base)
    if word is None:
        return NotImplemented
    inplace = base != op
    fwd, rev, inp = f"__{word}__", f"__r{word}__", f"__i{word}__"
    try:
        ta, tb = a.python_type(), b.python_type()
    except Unsupported:
        return NotImplemented
    calls = []  # (method, self, other, dunder) in CPython's order
    if inplace:
        calls.append((_lookup(tx, a, inp), a, b, inp))
    left, right = _lookup(tx, a, fwd), _lookup(tx, b, rev) if ta is not tb else None
    if right is not None and right is not _UNKNOWN and issubclass(tb, ta) \
            and _raw(tx, b, rev) is not _raw(tx, a, rev):
        calls += [(right, b, a, rev), (left, a, b, fwd)]
    else:
        calls += [(left, a, b, fwd), (right, b, a, rev)]
    if not any(type(c[0]) is types.FunctionType for c in calls):
        return NotImplemented
    ran_python = False
    for method, this, other, dunder in calls:
        if method is None:
            continue
        if method is _UNKNOWN:  # ``s |= [1]`` reaches list's C method only if ``__ior__`` declined
            if not ran_python:
                return NotImplemented
            raise Unsupported(f"operator {op}: {dunder} of {this.describe()} after a Python method declined",
                              kind="unsupported-operation")
        ran_python = ran_python or type(method) is types.FunctionType
        out = _call(tx, method, this, other, dunder)
        if not _declined(out):
            return out
    err = TypeError(f"unsupported operand type(s) for {op}: {ta.__name__!r} and {tb.__name__!r}")
    raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")


def _raw(tx, v: Value, dunder: str) -> Any:
    """The class entry ``type(v).<dunder>`` (for ``method_is_overloaded``)."""
    return mro_lookup(v.python_type(), dunder)[1]
