"""Iterators that advance as Python advances them.

* ``zip``/``map``/``filter``/``enumerate`` are lazy in Python: an item is computed (and the
  iterators underneath advanced, ``fn`` called) only when the loop asks for it, so side
  effects interleave with the loop body and an iterator shared with other code is consumed
  exactly as far as eager consumes it. :class:`LazyIteratorValue` does the same; at a graph
  break it is rebuilt as the same builtin over the rebuilt iterators underneath.
* An iterator the caller passes in (``next(it)``) is advanced for real: the items capture
  consumed are consumed again on the caller's iterator right after the graph
  (:class:`ForeignIteratorValue`, replayed through ``side_effects``).
"""
from __future__ import annotations

from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import ListIteratorValue, TupleValue


class LazyIteratorValue(ListIteratorValue):
    """``zip(...)``, ``map(fn, ...)``, ``filter(fn, it)``, ``enumerate(it, start)`` of the call."""

    def __init__(self, builtin: type, children: list[ListIteratorValue], *, fn: Value | None = None,
                 start: int = 0, strict: bool = False):
        super().__init__([], kind=builtin.__name__, cls=builtin)
        self.builtin = builtin
        self.children = children
        self.fn = fn
        self.count = start
        self.strict = strict
        self.done = False

    def describe(self):
        return f"{self.builtin.__name__} object"

    def next(self, tx):
        if self.done:
            return None
        item = self._step(tx)
        if item is None:
            self.done = True
        return item

    def _step(self, tx) -> Value | None:
        if self.builtin is enumerate:
            item = self.children[0].next(tx)
            if item is None:
                return None
            self.count += 1
            return TupleValue([ConstantValue(self.count - 1), item])
        if self.builtin is filter:
            while (item := self.children[0].next(tx)) is not None:
                keep = item.truth(tx) if _is_none(self.fn) else tx.call(self.fn, [item], {}).truth(tx)
                if keep:
                    return item
            return None
        items = []
        for i, child in enumerate(self.children):
            item = child.next(tx)
            if item is None:
                if self.strict and (i > 0 or any(c.next(tx) is not None for c in self.children[1:])):
                    raise Unsupported("ValueError from zip(strict=True)", generic=True, kind="python-exception")
                return None
            items.append(item)
        if self.builtin is map:
            return tx.call(self.fn, items, {})
        return TupleValue(items)

    def reconstruct(self, cg):
        if self.done:
            return cg.shared(self, "iter(())")
        children = ", ".join(cg.reconstruct(c) for c in self.children)
        if self.builtin is enumerate:
            text = f"enumerate({children}, {self.count})"
        elif self.builtin is zip:
            text = f"zip({children}{', strict=True' if self.strict else ''})"
        else:
            text = f"{self.builtin.__name__}({cg.reconstruct(self.fn)}, {children})"
        return cg.shared(self, text)


def _is_none(fn: Value | None) -> bool:
    return fn is None or (fn.is_constant() and fn.as_python_constant() is None)


def _advance(it: Any, count: int, to_end: bool = False) -> None:
    """Used by the transformed code: consume ``count`` items of the caller's iterator, and with
    ``to_end`` the ``next`` that found nothing left, as the capture's did: a list iterator that
    met its end is exhausted for good (an item appended to its list later is not yielded)."""
    for _ in range(count):
        next(it)
    if to_end:
        next(it, None)


class ForeignIteratorValue(ListIteratorValue):
    """A list/tuple/range iterator passed in by the caller, its remaining items known (and
    guarded). What capture consumes is consumed on the real iterator after the graph."""

    def __init__(self, items: list[Value], source, cls: type):
        super().__init__(items, kind="iterator", cls=cls)
        self.source = source
        self._recorded = False
        self.saw_end = False  # a ``next`` found nothing left: the real iterator must meet its end too

    def describe(self):
        return f"{self.cls.__name__} passed in ({self.source.expr})"

    def next(self, tx):
        item = super().next(tx)
        self.saw_end = self.saw_end or item is None
        if not self._recorded:
            self._recorded = True
            from autograph.capture.families import side_effects
            side_effects.record_replay(tx, self._replay)
        return item

    def _replay(self, cg) -> str | None:
        if not self.index and not self.saw_end:
            return None
        end = ", True" if self.saw_end else ""
        return f"{cg.const(_advance)}({cg.source_expr(self.source)}, {self.index}{end})"

    def reconstruct(self, cg):
        return cg.source_expr(self.source)  # the real iterator, advanced by the replay


def iterator_of(tx, value: Value) -> ListIteratorValue:
    """``iter(value)`` as an iterator value (or an iterator written in Python: see
    :func:`advances`)."""
    it = value.get_iter(tx)
    if not advances(tx, it):
        raise Unsupported(f"iterating over {value.describe()}", kind="unsupported-operation")
    return it


def advances(tx, it: Value) -> bool:
    """Whether ``it.next(tx)`` advances ``it`` as Python's ``next`` would: a modelled iterator, or
    an object of the call whose class has a Python ``__next__`` (user_objects.py)."""
    if isinstance(it, ListIteratorValue):
        return True
    check = getattr(it, "is_user_iterator", None)
    return check is not None and check(tx)


def make_lazy(tx, builtin: type, iterables: list[Value], **kw: Any) -> LazyIteratorValue:
    return LazyIteratorValue(builtin, [iterator_of(tx, v) for v in iterables], **kw)

