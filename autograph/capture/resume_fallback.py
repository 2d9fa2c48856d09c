"""Resume-function code, used when ``autograph.bytecode.resume`` is not available.

Same contract as ``bytecode.resume.make_resume_code``: a function
``(___stack0, ..., *live_locals)`` that restores the value stack (NULLs
re-pushed where ``stack_slots`` says so), keeps the frame prefix first, and
jumps to ``offset`` in a copy of the *original* code.
"""
from __future__ import annotations

from types import CodeType
from typing import Sequence

from bytecode import Bytecode, Instr, Label

from autograph.bytecode.assemble import abstract_with_offsets, prefix_instrs

_PREFIX = ("COPY_FREE_VARS", "MAKE_CELL", "RESUME")


def make_resume_code(code: CodeType, offset: int, stack_slots: Sequence[bool],
                     live_locals: Sequence[str], name: str) -> CodeType:
    bc, table = abstract_with_offsets(code)
    index = table[offset]
    target = Label()
    items = list(bc)
    items.insert(index, target)
    start = 0
    while start < len(items) and (not isinstance(items[start], Instr) or items[start].name in _PREFIX):
        if isinstance(items[start], Label):
            break
        start += 1
    body = items[start:]
    new = Bytecode()
    new.name = name
    new.qualname = name
    new.filename = code.co_filename
    new.first_lineno = code.co_firstlineno
    new.flags = bc.flags & ~(0x04 | 0x08)
    new.cellvars = list(bc.cellvars)
    new.freevars = list(bc.freevars)
    new.argnames = [f"___stack{i}" for i, null in enumerate(stack_slots) if not null] + list(live_locals)
    new.argcount = len(new.argnames)
    new.posonlyargcount = 0
    new.kwonlyargcount = 0
    lineno = code.co_firstlineno
    new.extend(prefix_instrs(code.co_cellvars, code.co_freevars, lineno))
    for i, null in enumerate(stack_slots):
        new.append(Instr("PUSH_NULL") if null else Instr("LOAD_FAST", f"___stack{i}"))
    new.append(Instr("JUMP_FORWARD", target))
    new.extend(body)
    return new.to_code()
