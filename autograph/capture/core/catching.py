"""Where a code object's exceptions can be caught: by an ``except``, or by a ``with`` block
whose ``__exit__`` decides (see ``interpreter.Frame.may_swallow``).

Decided from the instructions and their exception table alone, once per code object.
"""
from __future__ import annotations

import types
import weakref
from dataclasses import dataclass

from autograph.bytecode.instructions import Instruction


def _handler_catches(entry, instructions: list[Instruction]) -> tuple[bool, tuple[int, ...], bool]:
    """Whether an exception raised under ``entry`` can be caught (and swallowed) by user code,
    and the stack depths of the ``with`` blocks it passes through on the way.

    Handler blocks are followed outward while they only pass the exception on: cleanup
    blocks (not starting with ``PUSH_EXC_INFO``), ``with`` cleanups (``WITH_EXCEPT_START``)
    and ``finally`` bodies (they reach ``RERAISE`` before any ``POP_EXCEPT``). A block that
    matches (``CHECK_EXC_MATCH``) or ends the exception (``POP_EXCEPT``) first catches. A
    ``with`` cleanup swallows the exception when its ``__exit__`` returns true, which only the
    block's context manager can tell: the bound ``__exit__`` sits at ``depth - 1`` of the
    frame's stack while the block runs (see :func:`interpreter.Frame.may_swallow`).

    The third answer: whether a ``finally`` body runs on the way.
    """
    seen: set[int] = set()
    exits: list[int] = []
    finally_body = False
    while entry is not None and entry.target.index not in seen:
        handler = entry.target
        seen.add(handler.index)
        if handler.opname != "PUSH_EXC_INFO":
            entry = handler.exn
            continue
        for ins in instructions[handler.index + 1:]:
            if ins.opname == "WITH_EXCEPT_START":
                exits.append(entry.depth)
                entry = ins.exn
                break
            if ins.opname in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH", "POP_EXCEPT"):
                return True, tuple(exits), finally_body
            if ins.opname == "RERAISE":
                finally_body = finally_body or ins.index > handler.index + 1
                entry = ins.exn
                break
        else:
            return True, tuple(exits), finally_body  # no recognisable end: assume it catches
    return False, tuple(exits), finally_body


@dataclass(frozen=True)
class Catching:
    """Which instructions of a code object run where user code may catch their exceptions:
    ``always`` under an ``except``; ``under_with`` (index -> stack depths) inside ``with``
    blocks whose ``__exit__`` decides; ``under_finally`` where a ``finally`` body runs when the
    instruction raises."""
    always: frozenset[int]
    under_with: dict[int, tuple[int, ...]]
    under_finally: frozenset[int] = frozenset()


# weak: resume functions' code objects must die with them (equal code objects share an entry,
# which is right: the answer depends on the instructions only)
_CATCHING_CACHE: "weakref.WeakKeyDictionary[types.CodeType, Catching]" = weakref.WeakKeyDictionary()


def catching(code: types.CodeType, instructions: list[Instruction]) -> Catching:
    """Where an ``except`` (or a ``with`` block's ``__exit__``) of this code object can catch."""
    found = _CATCHING_CACHE.get(code)
    if found is None:
        always, under_with, under_finally = set(), {}, set()
        for ins in instructions:
            if ins.exn is None:
                continue
            catches, exits, finally_body = _handler_catches(ins.exn, instructions)
            if catches:
                always.add(ins.index)
            elif exits:
                under_with[ins.index] = exits
            if finally_body:
                under_finally.add(ins.index)
        found = _CATCHING_CACHE[code] = Catching(frozenset(always), under_with, frozenset(under_finally))
    return found
