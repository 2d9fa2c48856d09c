"""Normalised instructions for the interpreter (3.11 and 3.12 in one form).

Follows the ``bytecode ← capture`` contract form (``Instruction(opname, arg, argval,
offset, lineno, target, exn)``). The capture engine keeps this small local
normaliser so it depends only on :mod:`dis`; differences between versions end here.
"""
from __future__ import annotations

import dis
import sys
import types
from dataclasses import dataclass, field
from typing import Any

PY312 = sys.version_info >= (3, 12)

_JUMP_RENAMES = {
    "JUMP_FORWARD": "JUMP", "JUMP_BACKWARD": "JUMP", "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
}


@dataclass(eq=False)
class ExnEntry:
    target: "Instruction"
    depth: int
    lasti: bool


@dataclass(eq=False)
class Instruction:
    opname: str
    arg: int | None
    argval: Any
    offset: int
    lineno: int | None
    target: "Instruction | None" = None
    exn: ExnEntry | None = None
    index: int = -1
    argrepr: str = ""
    # where a resume function must start to re-run this instruction (KW_NAMES/PRECALL folded in)
    resume_offset: int = -1

    def __repr__(self) -> str:
        return f"<{self.offset} {self.opname} {self.argrepr or self.argval!r}>"


_CACHE: dict[types.CodeType, list[Instruction]] = {}


def normalize(code: types.CodeType) -> list[Instruction]:
    """Instructions of ``code`` in the normal form; cached per code object."""
    cached = _CACHE.get(code)
    if cached is not None:
        return cached
    raw = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE",)]
    out: list[Instruction] = []
    by_offset: dict[int, Instruction] = {}
    jump_offsets: dict[int, int] = {}  # id(out instr) -> original target offset
    pending_kw: Any = None
    lineno = code.co_firstlineno
    pending_ext: list[int] = []
    folded_from: int | None = None
    for ins in raw:
        if ins.positions is not None and ins.positions.lineno is not None:
            lineno = ins.positions.lineno
        elif getattr(ins, "starts_line", None) not in (None, False, True):
            lineno = ins.starts_line
        if ins.opname == "EXTENDED_ARG":
            pending_ext.append(ins.offset)
            continue
        op, arg, argval = ins.opname, ins.arg, ins.argval
        first_index = len(out)

        def emit(opname, arg=arg, argval=argval, argrepr=ins.argrepr):
            start = min(pending_ext) if pending_ext else ins.offset
            new = Instruction(opname, arg, argval, ins.offset, lineno, argrepr=argrepr,
                              resume_offset=start if folded_from is None else folded_from)
            new.index = len(out)
            out.append(new)
            return new

        if op == "PRECALL":
            folded_from = folded_from if folded_from is not None else (min(pending_ext) if pending_ext else ins.offset)
        elif op == "KW_NAMES":
            pending_kw = code.co_consts[arg]
            folded_from = min(pending_ext) if pending_ext else ins.offset
        elif op == "CALL":
            emit("CALL", argval=pending_kw or ())
            pending_kw = None
            folded_from = None
        elif op == "LOAD_ATTR" and PY312 and arg & 1:
            emit("LOAD_METHOD")
        elif op == "LOAD_ATTR" and PY312:
            emit("LOAD_ATTR")
        elif op == "BINARY_SLICE":
            emit("BUILD_SLICE", arg=2, argval=2)
            emit("BINARY_SUBSCR", arg=None, argval=None)
        elif op == "STORE_SLICE":
            emit("BUILD_SLICE", arg=2, argval=2)
            emit("STORE_SUBSCR", arg=None, argval=None)
        elif op == "RETURN_CONST":
            emit("LOAD_CONST")
            emit("RETURN_VALUE", arg=None, argval=None)
        elif op in _JUMP_RENAMES or op.startswith("POP_JUMP_IF") or op in (
                "FOR_ITER", "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP", "SEND"):
            new = emit(_JUMP_RENAMES.get(op, op))
            jump_offsets[id(new)] = argval
        elif op == "COMPARE_OP":
            emit("COMPARE_OP", argval=str(argval).replace("bool(", "").rstrip(")"))
        else:
            emit(op)
        if len(out) > first_index:
            for offset in pending_ext + [ins.offset]:
                by_offset.setdefault(offset, out[first_index])
            pending_ext = []
        else:  # folded away (PRECALL, KW_NAMES): jumps to it land on the next emitted instruction
            pending_ext.append(ins.offset)
    for new in out:
        if id(new) in jump_offsets:
            target = by_offset[jump_offsets[id(new)]]
            if new.opname == "FOR_ITER" and target.opname == "END_FOR":
                target = out[target.index + 1]
            new.target = target
    for start, end, target, depth, lasti in _exception_entries(code):
        entry = ExnEntry(by_offset[target], depth, lasti)
        for new in out:
            if start <= new.offset < end:
                new.exn = entry
    _CACHE[code] = out
    return out


def _exception_entries(code: types.CodeType):
    parse = getattr(dis, "_parse_exception_table", None)
    if parse is None:
        return []
    return [(e.start, e.end, e.target, e.depth, e.lasti) for e in parse(code)]


def binary_op_symbol(arg: int) -> str:
    """The operator symbol of ``BINARY_OP arg`` ("+", "+=", ...)."""
    return dis._nb_ops[arg][1]
