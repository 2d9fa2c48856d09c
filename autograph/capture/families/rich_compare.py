"""``a == b``, ``a < b``… when a user class defines the comparison in Python.

CPython's ``do_richcompare``, interpreted: the right operand's reflected method first when its
type is a proper subclass of the left one's, then the left operand's method, then the right
one's; a method answering ``NotImplemented`` passes the turn; when every method declines,
``==``/``!=`` fall back to identity and ordering raises ``TypeError``. User methods are inlined
(their side effects and their answers are the user's own code); ``object``'s methods are
modelled exactly (``__eq__``: identity or ``NotImplemented``, ``__ne__``: the inverse of the
type's ``__eq__``, orderings: ``NotImplemented``); a builtin type's method facing an operand of
no family it accepts declines, as its C code does. Anything else is left to other models.

``list.remove``/``index``/``count`` and ``in`` compare through here with CPython's
identity-first rule (``x is y or x == y``, ``base.equal_or_identical``).
"""
from __future__ import annotations

import types

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue

DUNDER = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}
SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

# builtin types whose comparison methods return NotImplemented unless the other operand is of
# one of these families (their C code checks the operand's type; a user class is of none)
_DECLINING_BUILTINS = (str, bytes, int, float, complex, bool, type(None), list, tuple, dict, set, frozenset)
_ACCEPTED_FAMILIES = (str, bytes, int, float, complex, list, tuple, dict, set, frozenset)


def _python_method(cls: type, name: str) -> types.FunctionType | None:
    raw = mro_lookup(cls, name)[1]
    return raw if type(raw) is types.FunctionType else None


def _modelled(cls: type, other: type, name: str) -> bool:
    """``cls.<name>`` is Python code, ``object``'s, or a builtin's that declines ``other``."""
    owner, raw = mro_lookup(cls, name)
    return type(raw) is types.FunctionType or owner is object or (
        owner in _DECLINING_BUILTINS and not issubclass(other, _ACCEPTED_FAMILIES))


def _applies(ta: type, tb: type, op: str) -> bool:
    """Every method the comparison may call is modelled, and a user method is among them (or the
    operator is an ordering, which ``object`` refuses: a TypeError)."""
    asked = [(ta, tb, DUNDER[op]), (tb, ta, DUNDER[SWAPPED[op]])]
    if op == "!=":
        asked += [(ta, tb, "__eq__"), (tb, ta, "__eq__")]
    if not all(_modelled(c, o, n) for c, o, n in asked):
        return False
    return op not in ("==", "!=") or any(_python_method(c, n) is not None for c, _, n in asked)


def _declined(v: Value) -> bool:
    return v.is_constant() and v.as_python_constant() is NotImplemented


def _method(tx, this: Value, other: Value, name: str) -> Value:
    """``type(this).<name>(this, other)``: the user's code, or the model of a builtin method."""
    from autograph.capture.families.builtins import identical_or_none
    from autograph.capture.families.functions import UserFunctionValue
    from autograph.capture.families.user_objects import _special
    cls, other_cls = this.python_type(), other.python_type()
    fn = _special(tx, cls, name)  # guarded: the class keeps this method
    if fn is not None:
        return UserFunctionValue(fn).call(tx, [this, other], {})
    owner = mro_lookup(cls, name)[0]
    if owner is object:
        if name == "__eq__":
            same = identical_or_none(tx, this, other)
            if same is None:
                raise Unsupported(f"identity test between {this.describe()} and {other.describe()}",
                                  kind="unsupported-operation")
            return ConstantValue(True if same else NotImplemented)
        if name == "__ne__":  # object.__ne__: the inverse of the type's own __eq__
            eq = _method(tx, this, other, "__eq__")
            return eq if _declined(eq) else ConstantValue(not eq.truth(tx))
        return ConstantValue(NotImplemented)
    if owner in _DECLINING_BUILTINS and not issubclass(other_cls, _ACCEPTED_FAMILIES):
        return ConstantValue(NotImplemented)
    raise Unsupported(f"{cls.__qualname__}.{name} with a {other_cls.__qualname__} operand",
                      kind="unsupported-operation")


def rich_compare(tx, a: Value, op: str, b: Value) -> Value:
    """``a <op> b`` when a user class defines the comparison in Python; NotImplemented otherwise."""
    try:
        ta, tb = a.python_type(), b.python_type()
    except Unsupported:
        return NotImplemented
    if not isinstance(ta, type) or not isinstance(tb, type) or not _applies(ta, tb, op):
        return NotImplemented
    name, reflected = DUNDER[op], DUNDER[SWAPPED[op]]
    reflected_first = ta is not tb and issubclass(tb, ta)
    if reflected_first:
        out = _method(tx, b, a, reflected)
        if not _declined(out):
            return out
    out = _method(tx, a, b, name)
    if not _declined(out):
        return out
    if not reflected_first:
        out = _method(tx, b, a, reflected)
        if not _declined(out):
            return out
    if op in ("==", "!="):
        from autograph.capture.families.builtins import _identical
        same = _identical(tx, a, b)
        return ConstantValue(same if op == "==" else not same)
    err = TypeError(f"'{op}' not supported between instances of '{ta.__name__}' and '{tb.__name__}'")
    raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
