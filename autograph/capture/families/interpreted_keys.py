"""Dict keys and set elements whose hash and equality are Python code: interpreted, not refused.

An object whose class defines ``__hash__`` in Python (a frozen dataclass, a class with
``__hash__``/``__eq__`` of its own) is keyed by an :class:`InterpretedKey`: its hash is what the
class's ``__hash__``, inlined at the operation that hashes it, returned (reduced as CPython's
``slot_tp_hash`` does), and equality with another key runs the user's ``==`` symbolically, so a
real ``dict`` of keys probes, compares and raises exactly as CPython's table would (``__eq__``
runs only between keys of equal hash, the stored key on the left; identical objects match
without it). A tuple (or named tuple) holding such keys, or objects hashed by identity, is
keyed by a :class:`TupleKey`: a real tuple of its items' keys, hashed and compared as
``tuple`` does.

``hash(obj)`` of such an object is the same interpreted hash.
"""
from __future__ import annotations

import sys
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.sets import _Identity


def _operand(other: Any) -> Value | None:
    """The value a key stands for (a constant key stands for itself)."""
    if isinstance(other, _Identity):
        return other.value
    if isinstance(other, tuple):
        from autograph.capture.families.containers import TupleValue
        items = [_operand(x) for x in other]
        return None if any(i is None for i in items) else TupleValue(items)
    return ConstantValue(other)


class InterpretedKey(_Identity):
    """The key of an object hashed by its class's own Python ``__hash__``."""

    __slots__ = ("tx", "hashed", "impure", "step")
    interprets = True
    real_hash = True  # hashed as the real object is: a table of such keys iterates as CPython's

    def __init__(self, tx, value: Value, hashed: int, impure: bool = False):
        super().__init__(value, value)
        self.tx, self.hashed = tx, hashed
        # its ``__hash__`` changed something (a counter on the object): a table rebuilt in Python
        # would run it again, so one holding this key is not rebuilt (refuse_rebuild)
        self.impure = impure
        self.step = tx.step  # the root step that hashed it (a break there runs the hash in Python)

    def __hash__(self) -> int:
        return self.hashed

    def __eq__(self, other: Any) -> bool:
        from autograph.capture.families.builtins import identical_or_none
        tx = self.tx
        theirs = _operand(other)
        if theirs is None:
            return NotImplemented
        if isinstance(other, _Identity) and identical_or_none(tx, self.value, theirs):
            return True  # PyObject_RichCompareBool: the same object matches without ``==``
        return tx.compare(self.value, "==", theirs).truth(tx)


class TupleKey(_Identity):
    """The key of a tuple that is not a constant: the real tuple of its items' keys."""

    __slots__ = ("inner",)
    interprets = True

    def __init__(self, value: Value, inner: tuple):
        super().__init__(value, value)
        self.inner = inner

    def __hash__(self) -> int:
        return hash(self.inner)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, TupleKey):
            return self.value is other.value or self.inner == other.inner
        if type(other) is tuple:
            return self.inner == other
        return NotImplemented  # tuple's == declines any other operand: the other side decides


def _python_hash_method(tx, cls: type):
    from autograph.capture.families.user_objects import _special
    return _special(tx, cls, "__hash__")


def _reduced(result: Any) -> int:
    """What CPython's ``slot_tp_hash`` makes of ``__hash__``'s result."""
    if not isinstance(result, int):
        err = TypeError("__hash__ method should return an integer")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
    if -sys.maxsize - 1 <= result <= sys.maxsize:
        return -2 if result == -1 else int(result)
    return hash(int(result))


def interpreted_hash(tx, value: Value) -> int | None:
    """``hash(value)`` run through the class's Python ``__hash__`` (inlined), or None when the
    class's hash is not Python code."""
    try:
        cls = value.python_type()
    except Unsupported:
        return None
    if not isinstance(cls, type) or value.is_tensor():
        return None
    fn = _python_hash_method(tx, cls)
    if fn is None:
        return None
    from autograph.capture.families.functions import UserFunctionValue
    out = UserFunctionValue(fn).call(tx, [value], {})
    if not out.is_constant() or out.mutable:
        raise Unsupported(f"{cls.__qualname__}.__hash__ returned {out.describe()}, not an int known now",
                          kind="unsupported-operation")
    return _reduced(out.as_python_constant())


def _plain_tuple(value: Value) -> bool:
    """A tuple (or tuple subclass keeping tuple's hash and equality) capture holds item by item."""
    from autograph.capture.families.containers import BaseSequenceValue
    if not isinstance(value, BaseSequenceValue):
        return False
    try:
        cls = value.python_type()
    except Unsupported:
        return False
    return isinstance(cls, type) and issubclass(cls, tuple) and all(
        mro_lookup(cls, name)[0] is tuple for name in ("__hash__", "__eq__"))


def interpreted_key(tx, value: Value, key_of) -> Any | None:
    """The key of ``value`` when its hashing is Python code or a tuple of keys, else None
    (``key_of`` keys the items of a tuple)."""
    if _plain_tuple(value):
        return TupleKey(value, tuple(key_of(item, tx) for item in value.items))
    before = _hash_effects(tx, value)
    hashed = interpreted_hash(tx, value)
    if hashed is None:
        return None
    after = _hash_effects(tx, value)
    return InterpretedKey(tx, value, hashed, impure=before is None or after != before)


def _hash_effects(tx, value: Value) -> tuple | None:
    """What a ``__hash__`` could change: the hashed object's state, the effects replayed after the
    graph (None when the object reaches too much to compare: taken as changed)."""
    from autograph.capture.families.side_effects import SIDE_EFFECTS
    from autograph.capture.families.state_walk import TooMuchState, walk_state
    effects = tx.state.peek(SIDE_EFFECTS)
    try:
        walked = walk_state(tx, [value], limit=_HASH_STATE_LIMIT)
    except TooMuchState:
        return None
    return walked, len(effects.events) if effects is not None else 0


_HASH_STATE_LIMIT = 2_000  # values a hashed object may reach and still be compared (else impure)


def refuse_rebuild(keys, what: str = "a dict or set holding") -> None:
    """A dict or set holding a key whose ``__hash__`` has effects cannot be rebuilt in Python, and
    a dict or set from outside cannot be given such a key by a call replayed after the graph:
    inserting the key again would run them again. The break moves to where the first such key
    was hashed, so Python makes the table (or the change)."""
    impure = [key for key in keys if getattr(key, "impure", False)]
    if impure:
        exc = Unsupported(f"{what} {impure[0].value.describe()}, whose __hash__ changes state, "
                          "cannot be rebuilt (Python would hash it again)", kind="cannot-rebuild")
        exc.retry_step = min(key.step for key in impure)  # break before it was first hashed
        raise exc


def _hash(tx, *args, **kwargs):
    """``hash(obj)`` of an object whose class defines ``__hash__`` in Python."""
    if len(args) != 1 or kwargs or args[0].is_constant():
        return NotImplemented
    hashed = interpreted_hash(tx, args[0])
    return NotImplemented if hashed is None else ConstantValue(hashed)


def install() -> None:
    registry.register_builtin(hash, _hash)
