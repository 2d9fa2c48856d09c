"""Containers that hold themselves (``l = [1]; l.append(l)``), as CPython allows.

A walk over a container's items (is it a constant? rebuild it as Python text) would not end on
such a value. A container reachable from its own items is never a constant (so ``repr``, ``==``
and the like are not folded from a real copy, whose identities would differ); at a break or
return a self-holding list or dict is rebuilt in two steps, as Python builds it: the empty
container is bound to a name first, then filled with items that may name it; a self-holding
tuple cannot be made by Python text and is a ``cannot-rebuild`` break.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Iterable

from autograph.capture.core.breaks import Unsupported

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.engine.codegen import Codegen
    from autograph.capture.core.base import Value

_local = threading.local()


def _visiting() -> set[int]:
    seen = getattr(_local, "visiting", None)
    if seen is None:
        seen = _local.visiting = set()
    return seen


def all_items(container: "Value", items: Iterable["Value"], test: Callable[["Value"], bool]) -> bool:
    """``all(test(i) for i in items)``, False where the walk comes back to ``container``."""
    visiting = _visiting()
    if id(container) in visiting:
        return False
    visiting.add(id(container))
    try:
        return all(test(i) for i in items)
    finally:
        visiting.discard(id(container))


def _children(value: "Value") -> list["Value"]:
    from autograph.capture.families.containers import BaseSequenceValue, DictValue
    if isinstance(value, BaseSequenceValue):
        return value.items
    if isinstance(value, DictValue):
        return list(value.items.values())
    return []


def holds_itself(value: "Value") -> bool:
    """Whether ``value`` is reachable from its own items (through lists, tuples and dicts)."""
    seen: set[int] = set()
    stack = list(_children(value))
    while stack:
        item = stack.pop()
        if item is value:
            return True
        if id(item) not in seen:
            seen.add(id(item))
            stack.extend(_children(item))
    return False


def rebuild_in_two_steps(cg: "Codegen", value: "Value", empty: str, fill: Callable[[str], str]) -> str | None:
    """The name of a self-holding ``value`` rebuilt as ``name = <empty>`` then ``fill(name)``
    (a statement whose items may read ``name``); None for a container that does not hold itself."""
    if id(value) in cg._shared:  # bound already (this is a reference from inside its own items)
        return cg._shared[id(value)]
    if not holds_itself(value):
        return None
    name = cg.shared(value, empty)
    statement = fill(name)  # the items' own statements go to ``pre`` first
    cg.pre.append(statement)
    return name


def refuse_self_holding_tuple(value: "Value") -> None:
    """A tuple inside its own items exists only through a list or dict mutated after the tuple
    was made; Python text cannot make that order, so it is a break."""
    if holds_itself(value):
        raise Unsupported("a tuple that holds itself (through a list or dict) is live at a graph break",
                          kind="cannot-rebuild")
