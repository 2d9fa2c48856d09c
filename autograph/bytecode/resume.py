"""Resume functions: continue the *original* code at an offset.

Why: after a graph break the rest of the function runs in a generated
function that starts in the middle of the original bytecode. Generating it
from the original code object (never from a previous resume function) keeps
a resume of a resume from growing, and jumping into an untouched copy of the
original instruction stream keeps every exception-table entry, ``with`` exit
and loop in place.

Layout of the generated code (``make_resume_code``)::

    COPY_FREE_VARS / MAKE_CELL ... / RESUME      the original's frame prefix
    LOAD_FAST ___stack<i> | PUSH_NULL            one per stack slot, bottom first
    JUMP_FORWARD  -> target                      one jump
    <the original instructions minus their prefix, a label before `offset`>

Parameters: ``___stack<i>`` for each *value* slot ``i`` (a NULL slot takes no
parameter, so the numbers have gaps), then ``live_locals`` in the given order.
Call it with ``types.FunctionType(code, fn.__globals__, name, None,
fn.__closure__)`` -- free variables are the original's, in the same order.

Cells: a live local that is a cell variable is passed by *value*; the
frame prefix's ``MAKE_CELL`` wraps the argument into a fresh cell. A closure
created *before* the break keeps the old cell, so a later write on one side
is not seen by the other; the capture engine must not break while such a
closure is alive (or must fall back).

Refused with ``ValueError`` (the caller falls back to running eagerly):
generators/coroutines, an unreachable offset, an offset inside an ``except``
handler body (the handled exception is frame state no argument can carry) or
reachable only while an exception unwinds, a stack layout whose depth differs
from the original's at ``offset``, and anything the assembler rejects.

Locals not passed are unbound; on 3.12+ every ``LOAD_FAST`` of a name that
is not a parameter is turned into ``LOAD_FAST_CHECK``, so reading one raises
``UnboundLocalError`` instead of crashing the interpreter.
"""
from __future__ import annotations

import dis
import sys
import threading
import weakref
from types import CodeType
from typing import Sequence, Union

from bytecode import Bytecode, CellVar, FreeVar, Instr, Label, TryBegin
from bytecode.instr import InstrLocation, SetLineno

from .assemble import CO_GENERATOR_LIKE, abstract_with_offsets, assemble, prefix_instrs
from .stackdepth import frame_facts

__all__ = ["make_resume_code", "resume_param_names", "resume_stack_depth", "Slot"]

PY = sys.version_info[:2]
Slot = Union[str, bool]  # "value" | "null"  (or False | True: is it a NULL?)
_PREFIX_OPS = ("COPY_FREE_VARS", "MAKE_CELL", "RESUME")

_cache: "weakref.WeakKeyDictionary[CodeType, dict]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _is_null(slot: Slot) -> bool:
    if slot in ("null", True):
        return True
    if slot in ("value", False):
        return False
    raise ValueError(f"stack slot must be 'value' or 'null', not {slot!r}")


def resume_param_names(stack_slots: Sequence[Slot], live_locals: Sequence[str]) -> list[str]:
    """The resume function's parameter names, in call order."""
    return [f"___stack{i}" for i, s in enumerate(stack_slots) if not _is_null(s)] + list(live_locals)


def _where(code: CodeType, offset: int) -> str:
    line = None
    for start, _end, ln in code.co_lines():
        if start <= offset and ln is not None:
            line = ln
    return f"{code.co_filename}:{line if line is not None else code.co_firstlineno}"


def _real_offset(code: CodeType, offset: int, table: dict) -> int:
    """Forward an ``EXTENDED_ARG`` prefix offset to the instruction it extends."""
    if offset in table:
        return offset
    raw = list(dis.get_instructions(code))
    for n, ins in enumerate(raw):
        if ins.offset == offset and ins.opname == "EXTENDED_ARG":
            for nxt in raw[n + 1:]:
                if nxt.offset in table:
                    return nxt.offset
    raise ValueError(f"{_where(code, offset)}: no instruction at offset {offset} in {code.co_name}")


def _call_start(code: CodeType, offset: int) -> int:
    """Resuming at a CALL re-runs the parts before it that carry no stack value
    but state the CALL reads: 3.11 ``KW_NAMES``/``PRECALL``, 3.12 ``KW_NAMES``,
    3.13 the kw-names ``LOAD_CONST`` of ``CALL_KW`` (the normalised CALL's
    offset is the CALL's own)."""
    raw = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG")]
    at = {i.offset: n for n, i in enumerate(raw)}
    n = at.get(offset)
    if n is None or raw[n].opname not in ("CALL", "CALL_KW"):
        return offset
    if raw[n].opname == "CALL_KW" and n > 0 and raw[n - 1].opname == "LOAD_CONST":
        return raw[n - 1].offset
    while n > 0 and raw[n - 1].opname in ("KW_NAMES", "PRECALL"):
        n -= 1
    return raw[n].offset


def resume_stack_depth(code: CodeType, offset: int) -> int:
    """How many stack slots ``make_resume_code`` expects at ``offset`` (for a
    3.13 ``CALL_KW`` this excludes the kw-names tuple, as in the normal form)."""
    _bc, table = abstract_with_offsets(code)
    start = _call_start(code, _real_offset(code, offset, table))
    depth = frame_facts(code).depth
    if start not in depth:
        raise ValueError(f"{_where(code, offset)}: offset {offset} of {code.co_name} is unreachable")
    return depth[start]


def make_resume_code(
    code: CodeType,
    offset: int,
    stack_slots: Sequence[Slot],
    live_locals: Sequence[str],
    name: str,
    *,
    cells: str = "value",
) -> CodeType:
    """Code of a function ``(___stack.., *live_locals)`` that rebuilds the value
    stack and continues ``code`` at ``offset`` (see the module docstring).

    ``cells="value"``: live cell variables are parameters (fresh cells).
    ``cells="closure"``: the original's cell variables become free variables
    of the resume function -- build it with ``closure = (cells of
    code.co_cellvars, in order) + fn.__closure__`` so closures created before
    the break keep sharing them; cell variables must not be in ``live_locals``.
    """
    if cells not in ("value", "closure"):
        raise ValueError(f"cells must be 'value' or 'closure', not {cells!r}")
    slots = tuple(_is_null(s) for s in stack_slots)
    live = tuple(live_locals)
    key = (offset, slots, live, name, cells)
    per_code = _cache.get(code)
    if per_code is not None and key in per_code:
        return per_code[key]
    result = _build(code, offset, slots, live, name, cells == "closure")
    with _lock:
        per_code = _cache.setdefault(code, {})
        return per_code.setdefault(key, result)


def _build(code: CodeType, offset: int, nulls: tuple, live: tuple, name: str,
           cells_in_closure: bool) -> CodeType:
    if code.co_flags & CO_GENERATOR_LIKE:
        raise ValueError(
            f"{_where(code, offset)}: cannot resume {code.co_name} in the middle: "
            "generators and coroutines keep their frame; run it eagerly instead"
        )
    bc, table = abstract_with_offsets(code)
    offset = _call_start(code, _real_offset(code, offset, table))
    facts = frame_facts(code)
    if offset not in facts.depth:
        raise ValueError(f"{_where(code, offset)}: offset {offset} of {code.co_name} is unreachable")
    if offset in facts.in_handler:
        raise ValueError(
            f"{_where(code, offset)}: offset {offset} of {code.co_name} is inside an except "
            "handler; a resume function cannot restore the handled exception"
        )
    raw = {i.offset: i for i in dis.get_instructions(code)}
    prev = {b.offset: a for a, b in zip(dis.get_instructions(code), list(dis.get_instructions(code))[1:])}
    if raw[offset].opname == "END_FOR" or (
        PY >= (3, 13) and raw[offset].opname == "POP_TOP"
        and prev.get(offset) is not None and prev[offset].opname == "END_FOR"
    ):
        raise ValueError(
            f"{_where(code, offset)}: offset {offset} of {code.co_name} is a loop's END_FOR, "
            "which CPython skips; resume at the instruction after it"
        )
    if offset in facts.exceptional:
        raise ValueError(
            f"{_where(code, offset)}: offset {offset} of {code.co_name} runs only while an "
            "exception unwinds; resume functions start in normal control flow"
        )
    if len(nulls) != facts.depth[offset]:
        raise ValueError(
            f"{_where(code, offset)}: the stack of {code.co_name} holds {facts.depth[offset]} "
            f"slots at offset {offset}, got a layout of {len(nulls)}"
        )
    allowed = set(code.co_varnames) | set(code.co_cellvars)
    if cells_in_closure:
        allowed -= set(code.co_cellvars) - set(code.co_varnames)
        shared = set(live) & set(code.co_cellvars)
        if shared:
            raise ValueError(f"cell variables {sorted(shared)} come from the closure, not parameters")
    for local in live:
        if local not in allowed:
            raise ValueError(f"{local!r} is not a local or cell variable of {code.co_name}")
    if len(set(live)) != len(live):
        raise ValueError(f"duplicate live locals {live}")

    items = list(bc)
    # drop the original frame prefix (it runs once, first, from our own prefix)
    start = 0
    while start < len(items):
        item = items[start]
        if isinstance(item, SetLineno) or (isinstance(item, Instr) and item.name in _PREFIX_OPS):
            start += 1
            continue
        break
    # resuming "at" a prefix instruction means starting the body
    target = max(table[offset], start)
    while not isinstance(items[target], Instr):
        target += 1
    target_instr = items[target]
    # a protected range starting exactly here: jump to its TryBegin, not past it
    # (bytecode's stack analysis needs to see the TryBegin on the jump's path)
    while target > start and isinstance(items[target - 1], (TryBegin, SetLineno)):
        target -= 1
    label = Label()
    items.insert(target, label)
    body = items[start:]

    params = resume_param_names(["null" if n else "value" for n in nulls], live)
    if PY >= (3, 12):
        body = _checked_loads(body, set(params) | (set(code.co_cellvars) if cells_in_closure else set()))
    cellvars, freevars = list(code.co_cellvars), list(code.co_freevars)
    if cells_in_closure and cellvars:
        body = _cells_to_free(code, body, offset)
        cellvars, freevars = [], cellvars + freevars

    loc = target_instr.location
    lineno = loc.lineno if loc is not None and loc.lineno is not None else code.co_firstlineno
    here = InstrLocation(lineno, lineno, None, None)
    new = Bytecode()
    new.name = name
    if hasattr(new, "qualname"):
        new.qualname = name
    new.filename = code.co_filename
    new.first_lineno = code.co_firstlineno
    new.flags = code.co_flags & ~(0x04 | 0x08)  # no *args / **kwargs
    new.cellvars = cellvars
    new.freevars = freevars
    new.argnames = params
    new.argcount = len(params)
    new.posonlyargcount = 0
    new.kwonlyargcount = 0
    new.extend(prefix_instrs(cellvars, freevars, code.co_firstlineno))
    for i, null in enumerate(nulls):
        new.append(Instr("PUSH_NULL", location=here) if null else Instr("LOAD_FAST", f"___stack{i}", location=here))
    new.append(Instr("JUMP_FORWARD", label, location=here))
    new.extend(body)
    try:
        # every path of the resume is a path of the original at the same depths,
        # and the rebuilt stack is no deeper than the original's at `offset`
        return assemble(new, stacksize=code.co_stacksize)
    except Exception as e:  # an assembler limit must become a fallback, not a crash
        raise ValueError(
            f"{_where(code, offset)}: cannot assemble a resume function for {code.co_name} "
            f"at offset {offset}: {e}"
        ) from e


def _cells_to_free(code: CodeType, body: list, offset: int) -> list:
    """References to the original's cell variables become free-variable ones."""
    out = []
    for item in body:
        if isinstance(item, Instr) and isinstance(item.arg, CellVar):
            item = Instr(item.name, FreeVar(item.arg.name), location=item.location)
        elif isinstance(item, Instr) and item.name.startswith(("LOAD_FAST", "STORE_FAST", "DELETE_FAST")) \
                and any(n in code.co_cellvars for n in (item.arg if isinstance(item.arg, tuple) else (item.arg,))):
            # 3.13 loads a cell for a closure with LOAD_FAST: no free-variable form
            raise ValueError(
                f"{_where(code, offset)}: cannot move cell variables of {code.co_name} into a "
                "closure on this Python; use cells='value'"
            )
        out.append(item)
    return out


def _checked_loads(body: list, params: set) -> list:
    """3.12+: unchecked loads of possibly-unbound locals become LOAD_FAST_CHECK."""
    out = []
    for item in body:
        if not isinstance(item, Instr):
            out.append(item)
            continue
        loc = item.location
        names = item.arg if isinstance(item.arg, tuple) else (item.arg,)
        if not all(isinstance(n, str) for n in names):
            out.append(item)  # a cell loaded as a value (3.13 closures): always bound
            continue
        if item.name == "LOAD_FAST" and item.arg not in params:
            out.append(Instr("LOAD_FAST_CHECK", item.arg, location=loc))
        elif item.name == "LOAD_FAST_LOAD_FAST" and not set(item.arg) <= params:
            a, b = item.arg
            out.append(Instr("LOAD_FAST_CHECK", a, location=loc))
            out.append(Instr("LOAD_FAST_CHECK", b, location=loc))
        elif item.name == "STORE_FAST_LOAD_FAST" and item.arg[1] not in params:
            a, b = item.arg
            out.append(Instr("STORE_FAST", a, location=loc))
            out.append(Instr("LOAD_FAST_CHECK", b, location=loc))
        else:
            out.append(item)
    return out
