"""Which locals a resume function needs: backward liveness on normalised bytecode.

Why: a resume function takes only the locals that the rest of the function
can read before writing them; passing fewer keeps calls cheap and keeps dead
values (big tensors) from being held alive.

A local is *live* at ``offset`` when some path starting at the instruction
there reads it before any write. Reads: ``LOAD_FAST``, ``LOAD_FAST_CHECK``,
``LOAD_FAST_AND_CLEAR`` (its value is restored after an inlined
comprehension), ``DELETE_FAST`` (raises when unbound, so boundness matters),
and for cell variables ``LOAD_DEREF``, ``LOAD_CLOSURE`` (a closure built later
captures the current value), ``DELETE_DEREF``, ``LOAD_CLASSDEREF`` and
``LOAD_FROM_DICT_OR_DEREF``. Writes: ``STORE_FAST`` and ``STORE_DEREF``.
Free variables are never reported: they come from the closure, not from
arguments. Exception-table edges count as paths (a handler may read a local
that the protected code never touches); a raising instruction's own write
does not happen on that edge.
"""
from __future__ import annotations

import threading
import weakref
from types import CodeType

from .instructions import Instruction, index_at, normalize

__all__ = ["live_locals_at", "live_in"]

_READS_FAST = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "DELETE_FAST"})
_READS_DEREF = frozenset({
    "LOAD_DEREF", "LOAD_CLOSURE", "DELETE_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF",
})
_WRITES = frozenset({"STORE_FAST", "STORE_DEREF"})
_NO_FALLTHROUGH = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"})

_cache: "weakref.WeakKeyDictionary[CodeType, list[frozenset]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _name(code: CodeType, ins: Instruction) -> str | None:
    name = ins.argval
    if not isinstance(name, str):
        return None
    if name in code.co_freevars:
        return None  # free variables come from the closure (3.13 loads them with LOAD_FAST too)
    if ins.opname in _READS_DEREF or ins.opname == "STORE_DEREF":
        return name if name in code.co_cellvars else None
    return name


def _compute(code: CodeType) -> list[frozenset]:
    instrs = normalize(code)
    n = len(instrs)
    uses: list[frozenset] = []
    defs: list[frozenset] = []
    succ: list[tuple[int, ...]] = []
    for ins in instrs:
        name = _name(code, ins)
        read = ins.opname in _READS_FAST or ins.opname in _READS_DEREF
        uses.append(frozenset((name,)) if read and name else frozenset())
        defs.append(frozenset((name,)) if ins.opname in _WRITES and name else frozenset())
        nxt: list[int] = []
        if ins.opname not in _NO_FALLTHROUGH and ins.index + 1 < n:
            nxt.append(ins.index + 1)
        if ins.target is not None:
            nxt.append(ins.target.index)
        succ.append(tuple(nxt))
    exn = [ins.exn.target.index if ins.exn is not None else -1 for ins in instrs]

    live: list[frozenset] = [frozenset()] * n
    changed = True
    while changed:  # backward fixpoint; reverse order converges in a few rounds
        changed = False
        for i in range(n - 1, -1, -1):
            out: set = set()
            for s in succ[i]:
                out |= live[s]
            new = uses[i] | (out - defs[i])
            if exn[i] >= 0:
                new |= live[exn[i]]
            new = frozenset(new)
            if new != live[i]:
                live[i] = new
                changed = True
    return live


def live_in(code: CodeType) -> list[frozenset]:
    """Live locals before each instruction of ``normalize(code)`` (cached)."""
    got = _cache.get(code)
    if got is None:
        result = _compute(code)
        with _lock:
            got = _cache.setdefault(code, result)
    return got


def live_locals_at(code: CodeType, offset: int) -> frozenset[str]:
    """Locals (and cell variables) read before written on some path from ``offset``."""
    return live_in(code)[index_at(code, offset)]
