"""``d1 | d2`` and ``d |= other`` on dicts capture models (``DictValue``), as CPython's
``dict.__or__``/``dict.__ior__`` do them.

``dict.__or__`` answers only when both operands are dicts: a copy of the left one updated with
the right one (other operands get NotImplemented, so Python's reflected operator decides).
``dict.__ior__`` is ``dict.update`` with one argument (any mapping or iterable of pairs) that
returns the dict itself, so it goes through the dict's own ``update``, with the replay of a
change to a dict from outside that ``update`` records."""
from __future__ import annotations

from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value, mro_lookup


# builtin types whose reflected ``|`` (if any) gives up on a dict
_GIVE_UP_ON_DICTS = (int, float, complex, bool, str, bytes, type(None), tuple, list)


def _plain_dict_operand(value: Value) -> bool:
    """A dict whose ``|`` operators are dict's own: a plain dict, or an instance of a user dict
    subclass that overrides neither ``__or__`` nor ``__ror__`` (Python would ask a subclass's
    own reflected operator first)."""
    from autograph.capture.core.base import mro_lookup
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.user_objects import UserObjectValue
    if type(value) is DictValue:
        return value.kind is dict
    if isinstance(value, UserObjectValue) and isinstance(value.items, DictValue) and issubclass(value.cls, dict):
        return all(mro_lookup(value.cls, name)[0] is dict for name in ("__or__", "__ror__", "__ior__"))
    return False


def dict_binary_op(tx, d: Value, op: str, other: Value, *, operator_call: bool = True) -> Value:
    """``d <op> other`` for ``|`` and ``|=`` on a dict ``d`` with dict's own operators, else
    NotImplemented (``operator_call``: the ``|`` operator, which raises Python's TypeError where
    both sides give up; ``d.__or__(x)`` called by name returns NotImplemented instead)."""
    from autograph.capture.families.containers import DictValue
    if op not in ("|", "|=") or not _plain_dict_operand(d):
        return NotImplemented
    items = d if type(d) is DictValue else d.items  # (the table a subclass instance holds)
    if op == "|=":  # dict_update_arg on the table itself
        items.call_method(tx, "update", [other], {})
        return d
    if not _plain_dict_operand(other):
        if operator_call and other.is_constant() and type(other.as_python_constant()) in _GIVE_UP_ON_DICTS:
            # dict.__or__ gives up, and so does the builtin's reflected operator: TypeError
            exc = TypeError(f"unsupported operand type(s) for |: '{d.python_type().__name__}' and "
                            f"'{type(other.as_python_constant()).__name__}'")
            raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
        return NotImplemented  # (another mapping: its own reflected operator decides)
    new = DictValue({})  # PyDict_Copy(d), then dict_update_arg(new, other): a plain dict
    new.call_method(tx, "update", [d], {})
    new.call_method(tx, "update", [other], {})
    return new


# methods that take no argument: any argument is Python's TypeError, whatever the dict holds
_NO_ARGUMENTS = frozenset({"keys", "values", "items", "clear", "copy", "popitem", "__iter__", "__len__",
                           "__reversed__"})


def dict_special_method(tx, d: Any, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``d.__iter__()``, ``d.__ior__(x)``, ``d.__or__(x)``, ``d.__len__()``...: the operation the
    special method is, on a dict capture models; the TypeError Python raises for a method called
    with arguments it does not take; else NotImplemented."""
    from autograph.capture.core.constants import ConstantValue
    from autograph.capture.families.containers import _check_arity
    if name in _NO_ARGUMENTS or (name == "update" and len(args) > 1):
        _check_arity(d.kind, name, args, kwargs)  # raises Python's TypeError for a wrong count
    if kwargs or d.kind is not dict:
        return NotImplemented
    if name == "__iter__" and not args:
        return d.get_iter(tx)
    if name == "__len__" and not args:
        return ConstantValue(len(d.items))
    if name == "__contains__" and len(args) == 1:
        return d.contains(tx, args[0])
    if name == "__getitem__" and len(args) == 1:
        return d.getitem(tx, args[0])
    if name in ("__or__", "__ior__") and len(args) == 1:
        out = dict_binary_op(tx, d, "|=" if name == "__ior__" else "|", args[0], operator_call=False)
        return ConstantValue(NotImplemented) if out is NotImplemented else out
    return NotImplemented


def dict_method_of_subclass(tx, obj: Value, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``dict.__or__(s, x)``, ``s.__ior__(x)``, ``dict.__eq__(s, x)`` on an instance of a user dict
    subclass (the C method on its table), or NotImplemented when not modelled here."""
    from autograph.capture.core.constants import ConstantValue
    if kwargs or len(args) != 1:
        return NotImplemented
    if name in ("__or__", "__ior__"):
        out = dict_binary_op(tx, obj, "|=" if name == "__ior__" else "|", args[0],
                             operator_call=False)
        return ConstantValue(NotImplemented) if out is NotImplemented else out
    if name in ("__eq__", "__ne__"):
        try:
            other_type = args[0].python_type()
        except Unsupported:
            other_type = None
        if isinstance(other_type, type) and not issubclass(other_type, dict):
            return ConstantValue(NotImplemented)  # (dict's comparison gives up on a non-dict)
        mine, theirs = _constant_table(obj), _constant_table(args[0])
        if mine is None or theirs is None:
            return NotImplemented
        return ConstantValue(dict.__eq__(mine, theirs) if name == "__eq__" else dict.__ne__(mine, theirs))
    return NotImplemented


_MISSING = object()


def _equality_table(value: Value):
    """The table of a dict (or dict subclass instance) whose ``==``/``!=`` are dict's own, else None."""
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.user_objects import UserObjectValue
    if type(value) is DictValue:
        table, cls = value, value.kind
    elif isinstance(value, UserObjectValue) and type(value.items) is DictValue:
        table, cls = value.items, value.cls
    else:
        return None
    if all(mro_lookup(cls, name)[0] is dict for name in ("__eq__", "__ne__")):
        return table
    return None


def dict_compare(tx, a: Value, op: str, b: Value) -> Value:
    """``a == b`` / ``a != b`` between dicts with dict's own comparison, as CPython's
    ``dict_equal``: equal lengths, then each key of ``a`` in order looked up in ``b`` (its hash,
    then the stored key's ``==``: user code for keys whose equality is Python's), then the two
    values compared by identity, else ``==``; the first difference stops it. NotImplemented for
    other operands."""
    from autograph.capture.core.constants import ConstantValue
    from autograph.capture.families.builtins import identical_or_none
    if op not in ("==", "!="):
        return NotImplemented
    ta, tb = _equality_table(a), _equality_table(b)
    if ta is None or tb is None:
        return NotImplemented
    equal = len(ta.items) == len(tb.items)
    if equal:
        for key, mine in list(ta.items.items()):
            theirs = tb.items.get(key, _MISSING)  # one lookup, as dict_equal's
            if theirs is _MISSING or not (identical_or_none(tx, mine, theirs) or tx.compare(mine, "==", theirs).truth(tx)):
                equal = False
                break
    return ConstantValue(equal if op == "==" else not equal)


def _constant_table(value: Value) -> dict | None:
    """The entries of a dict (or of a dict subclass instance's table) when all are constants."""
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.user_objects import UserObjectValue
    table = value.items if isinstance(value, UserObjectValue) else value
    if type(table) is not DictValue or not table.is_constant():
        return None
    return dict(table.as_python_constant())


def view_compare(tx, a: Value, op: str, b: Value) -> Value:
    """``a.items() == b.items()``, ``<=``, ... between keys/items views of modelled dicts, as
    CPython's ``dictview_richcompare``: lengths first, then ``all_contained_in`` -- each item of
    one view looked up in the other in order (an items view compares the stored value with
    ``==``, whose exception propagates), stopping at the first miss."""
    from autograph.capture.core.constants import ConstantValue
    from autograph.capture.families.containers import DictViewValue
    if not all(type(v) is DictViewValue and v.kind in ("keys", "items") for v in (a, b)):
        return NotImplemented
    na, nb = len(a.mapping.items), len(b.mapping.items)

    def all_contained_in(inner: Value, outer: Value) -> bool:
        return all(outer.contains(tx, item).truth(tx) for item in inner.iter_items(tx))

    if op in ("==", "!="):
        ok = na == nb and all_contained_in(a, b)
        return ConstantValue(ok if op == "==" else not ok)
    checks = {"<": (na < nb, a, b), "<=": (na <= nb, a, b), ">": (na > nb, b, a), ">=": (na >= nb, b, a)}
    if op not in checks:
        return NotImplemented
    sized, inner, outer = checks[op]
    return ConstantValue(sized and all_contained_in(inner, outer))
