"""Real tuple/list iterators from outside the capture, read one item at a time.

A resume function inside a ``for`` loop receives the loop's iterator (``for block in
self.blocks: h = block(h)`` with a graph break at the call).  Its items may be anything
(modules, tensors, objects).  :class:`LiveIteratorValue` peeks at the items still to come
without consuming them and guards only what the capture used: the k-th item it took
(through ``remaining(it)[k]``) and, when it saw the end, that nothing else was left.
So every position of such a loop reuses one cache entry when the items look alike,
instead of one entry per position.

The real iterator is advanced after the graph by as many items as the capture took
(a replayed side effect), so whoever else holds it sees it exactly where Python leaves it;
at a graph break the resume function receives that same, advanced, iterator.
"""
from __future__ import annotations

from dataclasses import dataclass

from autograph.capture.core import registry
from autograph.capture.families import builder
from autograph.capture.families import side_effects
from autograph.capture.core.base import Value
from autograph.capture.families.containers import ListIteratorValue
from autograph.guards.sources import ITER_ITEMS, ITER_SEQUENCE, AppliedSource, ItemSource, Source


def remaining(it) -> tuple:
    """The items ``it`` will still yield, without consuming it."""
    out = builder._iterator_remaining(it)
    if out is None:
        raise TypeError(f"cannot read the remaining items of {type(it).__name__}")
    return out


def advance(it, n: int, to_end: bool = False):
    """Take ``n`` items from ``it`` (what the compiled code's loop consumed), and with ``to_end``
    the ``next`` that found nothing left, as the loop's last ``FOR_ITER`` did: a list iterator
    that met its end stays exhausted (an item appended to its list later is not yielded);
    returns ``it``."""
    for _ in range(n):
        next(it)
    if to_end:
        next(it, None)
    return it


@dataclass(frozen=True)
class RemainingSource(AppliedSource):
    """``remaining(it)``: the items a tuple/list iterator still holds (read without consuming;
    a native plan reads a list or tuple iterator's fields, without calling ``remaining``)."""

    in_place = ITER_ITEMS

    def reader(self):
        return remaining

    def render(self, ctx):
        text = f"{ctx.constant(remaining, 'remaining')}({ctx.expr(self.base_source)})"
        # only capture's Codegen keeps snapshots (the families do not import the engine)
        snapshots = getattr(ctx, "remaining_snapshots", None)
        if snapshots is None:  # a guard check: read now
            return text
        # the transformed entry advances the iterator after the graph (a replayed side effect):
        # items are read from a snapshot taken when the entry starts
        if self not in snapshots:
            snapshots[self] = name = f"__rem{len(snapshots)}"
            ctx.prologue.append(f"{name} = {text}")
        return snapshots[self]


class _Count(Value):
    """The number of items taken, read when the transformed code is written (the final count)."""

    def __init__(self, iterator: "LiveIteratorValue"):
        self.iterator = iterator

    def reconstruct(self, cg):
        return repr(self.iterator.index)


class _SawEnd(Value):
    """Whether the capture asked for an item past the last one (read when the code is written)."""

    def __init__(self, iterator: "LiveIteratorValue"):
        self.iterator = iterator

    def reconstruct(self, cg):
        return repr(self.iterator.saw_end)


class _Real(Value):
    def __init__(self, source):
        self.source = source


class LiveIteratorValue(ListIteratorValue):
    """A real iterator reached through ``source``; items are taken lazily and guarded one by one."""

    def __init__(self, tx, it, source):
        super().__init__([])
        self.it = it
        self.source = source
        self.recorded = False
        self.saw_end = False  # a ``next`` found nothing left: the real one must meet the end too
        self._tx = tx

    def describe(self):
        return f"{type(self.it).__name__} {self.source.expr}"

    def python_type(self):
        return type(self.it)

    def _left(self) -> tuple:
        return remaining(self.it)

    def next(self, tx) -> Value | None:
        left = self._left()
        k = self.index
        src = RemainingSource(self.source)
        if not self.recorded:  # advance the real iterator after the graph by the final count
            self.recorded = True
            side_effects.record_call(tx, advance, [_Real(self.source), _Count(self), _SawEnd(self)], {})
        if k >= len(left):
            tx.guards.iterator_remaining(self.source, remaining, k, more=False)
            self.saw_end = True
            return None
        tx.guards.iterator_remaining(self.source, remaining, k, more=True)
        item = tx.wrap(left[k], ItemSource(src, k))
        self.index = k + 1
        return item

    def reconstruct(self, cg):
        return cg.source_expr(self.source)  # advanced by the replayed side effect first


def _sequence_of(it):
    """The list or tuple a list/tuple iterator walks (None once exhausted)."""
    try:
        seq = it.__reduce__()[1][0]
    except Exception:  # noqa: BLE001 - not a sequence iterator
        return None
    return seq if type(seq) in (list, tuple) and len(seq) else None


@dataclass(frozen=True)
class SequenceOfSource(AppliedSource):
    """``_sequence_of(it)``: the list or tuple a list/tuple iterator walks (None once exhausted;
    a native plan reads a list or tuple iterator's field, without calling ``_sequence_of``)."""

    in_place = ITER_SEQUENCE

    def reader(self):
        return _sequence_of


def _keep_apart(tx, it, it_source: Source, list_value: Value) -> None:
    """An iterator from outside is read from its list's real items at capture; a list from
    outside that this call changes (the change replayed after the graph) must not be the one it
    walks: a break when it is, else a guard that it stays another list."""
    from autograph.capture.core.breaks import Unsupported
    if list_value.identity is not None and _sequence_of(it) is list_value.identity:
        raise Unsupported(f"change of the list {list_value.source.expr} while an iterator over it "
                          f"({it_source.expr}) is live", kind="side-effect")
    tx.guards.distinct(SequenceOfSource(it_source), list_value.source)


# (iterator, source) of every iterator this capture reads from outside
OUTSIDE_ITERATORS = registry.state_slot("outside_iterators", list, __name__)
# id(iterator) -> (its value, the first source it was reached through)
LIVE_ITERATORS = registry.state_slot("live_iterators", dict, __name__)


def outside_iterator(tx, it, source: Source) -> None:
    """Record that this capture reads the iterator ``it`` from outside (see :func:`_keep_apart`)."""
    from autograph.capture.families.containers import changed_outside_lists
    for changed in changed_outside_lists(tx):
        _keep_apart(tx, it, source, changed)
    OUTSIDE_ITERATORS.of(tx).append((it, source))


def keep_apart_from_iterators(tx, list_value: Value) -> None:
    """``list_value`` (a list from outside) is changed by this call: see :func:`_keep_apart`."""
    for it, source in OUTSIDE_ITERATORS.peek(tx) or ():
        _keep_apart(tx, it, source, list_value)


def reached_before(tx, it, source: Source) -> Value | None:
    """The value of the outside iterator ``it`` when this capture reached it already (through
    another read: each ``next(ITER)`` loads the global anew): one value, so the items taken are
    counted once, with a guard that ``source`` is still that same object."""
    seen = LIVE_ITERATORS.of(tx)
    if id(it) not in seen:
        return None
    value, first = seen[id(it)]
    tx.guards.same_object(first, source)
    return value


def remember(tx, it, source: Source, value: Value) -> None:
    """``value`` models the outside iterator ``it`` for the rest of this capture."""
    LIVE_ITERATORS.of(tx)[id(it)] = (value, source)


def _wrap_iterator(tx, it, source) -> Value:
    if source is None or builder._iterator_remaining(it) is None:
        tx.guards.type_(source, it)
        from autograph.capture.families.objects import ObjectValue
        return ObjectValue(it, source)
    seen = LIVE_ITERATORS.of(tx)
    if id(it) in seen:  # the same iterator reached twice (a stack slot and a local): one value
        value, first = seen[id(it)]
        tx.guards.same_object(first, source)
        return value
    tx.guards.type_(source, it)
    value = LiveIteratorValue(tx, it, source)
    outside_iterator(tx, it, source)
    seen[id(it)] = (value, source)
    return value


def install() -> None:
    for it in (iter(()), iter([])):
        registry.register_type_wrapper(type(it), _wrap_iterator, replace=False)
