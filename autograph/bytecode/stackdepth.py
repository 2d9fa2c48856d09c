"""Value-stack depth at each original offset, from ``dis.stack_effect``.

Why: a resume function must rebuild exactly the stack the original code has
at the resume offset, and must not start inside an ``except`` handler (the
"current exception" is frame-external state that cannot be passed as an
argument). ``frame_facts`` computes both once per code object, following
CPython's own encoding (jump targets as ``dis`` reports them, exception
handlers at ``depth + 1 + lasti``).
"""
from __future__ import annotations

import dis
import opcode as _opcode
import sys
import weakref
from dataclasses import dataclass
from types import CodeType

__all__ = ["FrameFacts", "frame_facts", "stack_depth_at"]

_JUMPS = frozenset(set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ())))
_HASARG = set(getattr(_opcode, "hasarg", range(_opcode.HAVE_ARGUMENT, 256)))
_TERMINAL = frozenset({
    "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE",
    "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
})


_CANNOT_RAISE = frozenset({
    "NOP", "POP_EXCEPT", "COPY", "SWAP", "POP_TOP", "PUSH_NULL", "LOAD_CONST",
    "RETURN_CONST", "STORE_FAST", "PUSH_EXC_INFO", "JUMP_FORWARD", "JUMP_BACKWARD",
    "JUMP_BACKWARD_NO_INTERRUPT", "RESUME", "END_FOR", "CACHE", "EXTENDED_ARG",
})


@dataclass(frozen=True)
class FrameFacts:
    depth: dict          # offset -> stack depth before the instruction
    in_handler: frozenset  # offsets inside an except/finally/with-exit handler
    exceptional: frozenset  # offsets reachable only through an exception edge


def _effect(ins: dis.Instruction, jump: bool) -> int:
    if sys.version_info[:2] == (3, 11):
        # dis splits a 3.11 call's effect over PRECALL (-argc) and CALL (-1);
        # at run time PRECALL pops nothing and CALL pops argc + 1
        if ins.opname == "PRECALL":
            return 0
        if ins.opname == "CALL":
            return -((ins.arg or 0) + 1)  # CALL always has its argc
    arg = ins.arg if ins.opcode in _HASARG else None
    return dis.stack_effect(ins.opcode, arg, jump=jump)


def _analyse(code: CodeType) -> FrameFacts:
    instrs = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    at = {i.offset: n for n, i in enumerate(instrs)}
    handlers = list(dis._parse_exception_table(code))  # type: ignore[attr-defined]
    depth: dict[int, int] = {}
    # handled exceptions open (PUSH_EXC_INFO .. POP_EXCEPT), capped: only > 0 matters
    nesting: dict[int, int] = {}
    work: list[int] = []

    def reach(off: int, d: int, h: int) -> None:
        if off not in at:
            return
        h = min(h, 2)
        if off not in depth:
            depth[off] = d
            nesting[off] = h
            work.append(at[off])
        elif h > nesting[off]:
            nesting[off] = h
            work.append(at[off])

    if instrs:
        reach(instrs[0].offset, 0, 0)
    while work:
        n = work.pop()
        ins = instrs[n]
        d, h = depth[ins.offset], nesting[ins.offset]
        for e in handlers:
            # instructions that cannot raise get no exception edge (their table
            # entry is the enclosing block's and would leak "inside a handler")
            if e.start <= ins.offset < e.end and ins.opname not in _CANNOT_RAISE:
                reach(e.target, e.depth + 1 + int(e.lasti), h)
                break
        if ins.opcode in _JUMPS:
            reach(ins.argval, d + _effect(ins, True), h)
        if ins.opname not in _TERMINAL and n + 1 < len(instrs):
            after = h
            if ins.opname == "PUSH_EXC_INFO":
                after = h + 1
            elif ins.opname == "POP_EXCEPT" and h > 0:
                after = h - 1
            reach(instrs[n + 1].offset, d + _effect(ins, False), after)
    normal: set[int] = set()
    todo = [0] if instrs else []
    while todo:
        n = todo.pop()
        if n >= len(instrs) or instrs[n].offset in normal:
            continue
        ins = instrs[n]
        normal.add(ins.offset)
        if ins.opcode in _JUMPS and ins.argval in at:
            todo.append(at[ins.argval])
        if ins.opname not in _TERMINAL:
            todo.append(n + 1)
    return FrameFacts(
        depth,
        frozenset(off for off, h in nesting.items() if h > 0),
        frozenset(depth) - normal,
    )


_cache: "weakref.WeakKeyDictionary[CodeType, FrameFacts]" = weakref.WeakKeyDictionary()


def frame_facts(code: CodeType) -> FrameFacts:
    got = _cache.get(code)
    if got is None:
        got = _cache.setdefault(code, _analyse(code))
    return got


def stack_depth_at(code: CodeType, offset: int) -> int:
    """Depth of the value stack just before the instruction at ``offset``
    (NULLs count as slots). ValueError for an unreachable offset."""
    facts = frame_facts(code)
    if offset not in facts.depth:
        raise ValueError(f"offset {offset} of {code.co_name} is not reachable")
    return facts.depth[offset]
