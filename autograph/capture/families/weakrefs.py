"""``weakref.ref(obj)`` of an object from outside: the real weak reference, made at capture.

Making a weak reference without a callback runs no user code and changes nothing Python can
observe (CPython even hands back the one it made before for the same object). Capture makes the
real one for the real object the value stands for (read through a source, guarded to be that
object), so hashing it, comparing it and using it as a dict key (a ``WeakKeyDictionary``'s
table) are Python's own; calling it gives the object back (alive: the call holds it). At a graph break or return the transformed code makes it again from the object.
``weakref.ref(obj)`` of an object made during the call (a user object, a graph tensor) is a
:class:`MadeWeakrefValue`: calling it gives the object back when capture can prove it alive --
reachable from a local, a cell or the stack of a frame being interpreted, or from a value a
pending side effect holds (every such place holds a real reference in the plain call too) --
and breaks otherwise (kind ``weakref-liveness``: only reference counts decide whether it died).
The same object always gets the same reference, as CPython hands back. Live at a break or
returned, it cannot be made again (its object may have died): the break moves to the
``weakref.ref`` call, which then runs in Python. Weak references with a callback are not modelled
(a break).
"""
from __future__ import annotations

import weakref
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported, break_kind

WEAKREF_LIVENESS = break_kind(
    "weakref-liveness", "a weak reference to an object made in the call is followed where capture cannot "
    "prove the object still alive (only reference counts decide whether it died), so the call runs in Python",
    "keep a plain reference to the object in a local variable while the weak reference is used")

# per capture: id(referent value) -> its MadeWeakrefValue (one reference per object, as CPython)
MADE_REFS = registry.state_slot("made_weakrefs", dict, __name__)
_SCAN_BUDGET = 20_000  # values visited before giving up (then: not proven alive)


class WeakrefValue(Value):
    """``weakref.ref(obj)`` of a real object: ``referent`` is the value of the object."""

    def __init__(self, referent: Value, real: weakref.ReferenceType):
        self.referent = referent
        self.real = real

    def describe(self) -> str:
        return f"weakref to {self.referent.describe()}"

    def python_type(self):
        return type(self.real)

    def real_value(self):
        return self.real

    def call(self, tx, args, kwargs):
        _no_arguments(args, kwargs)
        return self.referent

    def reconstruct(self, cg):
        return f"{cg.const(weakref.ref)}({cg.reconstruct(self.referent)})"


def _no_arguments(args, kwargs) -> None:
    """Calling a weak reference takes no arguments: Python's TypeError otherwise."""
    if args or kwargs:
        exc = TypeError(f"weakref() takes no arguments ({len(args) + len(kwargs)} given)")
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")


def _real_referent(value: Value) -> Any:
    """The real object ``value`` stands for when it was read from outside through a source (None
    otherwise: a tensor of the graph, an object made in the call, whose real object capture
    holds may be a stand-in made at capture)."""
    if value.is_tensor() or value.source is None:
        return None
    try:
        return value.real_value()
    except Unsupported:
        return None


class MadeWeakrefValue(Value):
    """``weakref.ref(obj)`` of an object made during the call (``referent`` is its value)."""

    def __init__(self, referent: Value):
        self.referent = referent

    def describe(self) -> str:
        return f"weakref to {self.referent.describe()}"

    def python_type(self):
        return weakref.ReferenceType

    def call(self, tx, args, kwargs):
        _no_arguments(args, kwargs)
        if not reachable(tx, self.referent, exclude=self):
            raise Unsupported(f"calling a {self.describe()}: the object may have died", kind=WEAKREF_LIVENESS)
        return self.referent

    def reconstruct(self, cg):
        raise Unsupported(f"a {self.describe()} is live where the graph ends (its object may have died)",
                          kind=WEAKREF_LIVENESS)


def _children(value: Value) -> list:
    """The values ``value`` holds a real reference to, for the kinds whose fields say so exactly:
    a cell's contents, a list/tuple/dict's items, a user object's attributes, slots and items.
    Other values are not looked into (what they hold may not be a reference in the plain call)."""
    from autograph.capture.families.containers import DictValue, ListValue, TupleValue
    from autograph.capture.families.functions import CellValue
    from autograph.capture.families.user_objects import UserObjectValue
    if isinstance(value, CellValue):
        return [value.contents] if isinstance(value.contents, Value) else []
    if type(value) in (ListValue, TupleValue):
        return list(value.items)
    if type(value) is DictValue:
        return list(value.items.values())
    if isinstance(value, UserObjectValue):
        held = [value.attrs, *value.slots.values()]
        return held + ([value.items] if isinstance(value.items, Value) else [])
    return []


def reachable(tx, target: Value, exclude: Value | None = None) -> bool:
    """Whether ``target`` is reachable from what holds real references in the plain call at this
    point: the locals, cells and stacks of the frames being interpreted and the values pending
    side effects hold (``exclude``, a weak reference, holds none). False also when the search
    gives up (too many values)."""
    roots: list = []
    for frame in getattr(tx, "frames", ()):
        roots.extend(frame.locals.values())
        roots.extend(frame.cells.values())
        roots.extend(frame.stack)
    effects = registry.STATE_SLOTS.get("side_effects")
    pending = effects.peek(tx) if effects is not None else None
    if pending is not None:
        for event in pending.events:
            roots.extend(x for x in event if isinstance(x, Value))
    seen: set[int] = set()
    todo = [r for r in roots if isinstance(r, Value)]
    while todo:
        value = todo.pop()
        if value is target:
            return True
        if id(value) in seen or value is exclude or isinstance(value, MadeWeakrefValue):
            continue
        seen.add(id(value))
        if len(seen) > _SCAN_BUDGET:
            return False
        todo.extend(_children(value))
    return False


def _made_weakref(tx, referent: Value) -> Value:
    """``weakref.ref(obj)`` of a value made in the call: Python's TypeError for a type without
    weak references, else the one reference of that object."""
    try:
        kind = referent.python_type()
    except Unsupported:
        return NotImplemented
    if not kind.__weakrefoffset__:
        exc = TypeError(f"cannot create weak reference to {kind.__name__!r} object")
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
    made = MADE_REFS.of(tx)
    if id(referent) not in made:
        ref = MadeWeakrefValue(referent)
        ref.created_step = tx.step  # live at a break: the break moves here
        made[id(referent)] = (referent, ref)  # (the referent is kept: its id stays its own)
    return made[id(referent)][1]


def _weakref_call(tx, cls, args, kwargs):
    if cls is not weakref.ref or kwargs or len(args) != 1:
        return NotImplemented
    referent = args[0]
    real = _real_referent(referent)
    if real is None:
        return _made_weakref(tx, referent) if referent.source is None else NotImplemented
    try:
        ref = weakref.ref(real)
    except TypeError as exc:
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception") from None
    tx.guards.id_(referent.source, real)  # the weak reference is to this object
    return WeakrefValue(referent, ref)


def _dereference(ref: weakref.ReferenceType) -> Any:
    """``ref()``: the object a weak reference points to now (None once it died); only reads."""
    return ref()


class OutsideWeakrefValue(WeakrefValue):
    """A weak reference from outside, reached through a source (``self._flat_weight_refs[i]`` of
    an RNN): calling it reads its referent through ``_dereference(source)``, wrapped and guarded
    like any object read from outside (None guarded to stay None), so the call gives that object
    while the guards hold (``referent`` is None until then). The reference itself is guarded by
    identity (hashing and comparing it are the real one's)."""

    def __init__(self, real: weakref.ReferenceType, source):
        super().__init__(None, real)  # type: ignore[arg-type]
        self.source = source

    def describe(self) -> str:
        return f"weakref {self.source.expr}"

    def call(self, tx, args, kwargs):
        _no_arguments(args, kwargs)
        if self.referent is None:
            from autograph.capture.families.builder import wrap_real
            from autograph.guards.sources import FunctionOfSource
            self.referent = wrap_real(tx, self.real(), FunctionOfSource(self.source, _dereference, "deref"))
        return self.referent

    def reconstruct(self, cg):
        return cg.source_expr(self.source)


def _wrap_outside_weakref(tx, ref, source) -> Value:
    if source is None:
        raise Unsupported("a weak reference reached without a guardable source", kind="unsupported-call")
    tx.guards.id_(source, ref)
    return OutsideWeakrefValue(ref, source)


def install() -> None:
    registry.add_class_call_hook(_weakref_call)
    registry.register_type_wrapper(weakref.ReferenceType, _wrap_outside_weakref)
