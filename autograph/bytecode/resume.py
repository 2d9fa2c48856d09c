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
parameter, so the numbers have gaps), then ``live_locals`` in the given order,
then ``___exc`` when ``raise_exc``. Call it with ``types.FunctionType(code,
fn.__globals__, name, None, fn.__closure__)`` -- free variables are the
original's, in the same order.

Slots: ``"value"`` (pushed as given), ``"null"`` (a NULL), ``"enter"`` -- the
parameter is a context manager that the preamble *enters* (``BEFORE_WITH``,
result dropped), leaving its ``__exit__`` in the slot: the resume function
re-enters a ``with`` block that was open at the break (a fresh grad-mode or
autocast context, say), and the original's own exit code -- normal and
exceptional -- leaves it, once.

``raise_exc``: the resume function raises ``___exc`` right before the
instruction at ``offset``, inside the same exception-table range, so the
original's handlers (``with`` exits, ``except``, ``finally``) run for an
exception the breaking instruction raised outside (in the transformed code).

Cells: a live local that is a cell variable is passed by *value*; the
frame prefix's ``MAKE_CELL`` wraps the argument into a fresh cell. A closure
created *before* the break keeps the old cell, so a later write on one side
is not seen by the other. Names in ``cell_refs`` are passed as the *cell
objects themselves* instead: their ``MAKE_CELL`` is left out of the prefix, so
the frame and closures rebuilt by the caller share the cell
(``cells_passed_by_reference(code)`` tells them apart; ``locals()`` inside the
resume shows such a variable as its cell).

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

__all__ = ["make_resume_code", "resume_param_names", "super_first_local", "resume_stack_depth",
           "cells_passed_by_reference",
           "preamble_length", "Slot"]

PY = sys.version_info[:2]
Slot = Union[str, bool]  # "value" | "null" | "enter"  (or False | True: is it a NULL?)
EXC_PARAM = "___exc"
_PREFIX_OPS = ("COPY_FREE_VARS", "MAKE_CELL", "RESUME")

_cache: "weakref.WeakKeyDictionary[CodeType, dict]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _kind(slot: Slot) -> str:
    if slot is True or slot == "null":
        return "null"
    if slot is False or slot == "value":
        return "value"
    if slot == "enter":
        return "enter"
    raise ValueError(f"stack slot must be 'value', 'null' or 'enter', not {slot!r}")


def _is_null(slot: Slot) -> bool:
    return _kind(slot) == "null"


def resume_param_names(stack_slots: Sequence[Slot], live_locals: Sequence[str], *,
                       raise_exc: bool = False, first_local: str | None = None) -> list[str]:
    """The resume function's parameter names, in call order. ``first_local`` (see
    :func:`super_first_local`) comes first of all."""
    live = list(live_locals)
    head = [first_local] if first_local is not None and first_local in live else []
    names = head + [f"___stack{i}" for i, s in enumerate(stack_slots) if not _is_null(s)] \
        + [n for n in live if n not in head]
    return names + [EXC_PARAM] if raise_exc else names


def super_first_local(code: CodeType, live_locals: Sequence[str]) -> str | None:
    """The local a zero-argument ``super()`` in ``code`` reads, when the resume receives it: a
    method using ``super()`` has the ``__class__`` cell, and ``super()`` takes the *first* local of
    the running frame as its instance, so that parameter must stay first in the resume function."""
    if "__class__" not in code.co_freevars or not code.co_argcount:
        return None
    first = code.co_varnames[0]
    return first if first in live_locals else None


def cells_passed_by_reference(code: CodeType) -> frozenset:
    """Cell variables of a resume function's ``code`` that arrive as cell objects (parameters
    whose ``MAKE_CELL`` the prefix leaves out, see ``cell_refs``)."""
    params = set(code.co_varnames[:code.co_argcount])
    made = {ins.argval for ins in dis.get_instructions(code) if ins.opname == "MAKE_CELL"}
    return frozenset(n for n in code.co_cellvars if n in params and n not in made)


def preamble_length(stack_slots: Sequence[Slot], *, raise_exc: bool = False) -> int:
    """Instructions between the frame prefix and the original body (slot pushes, entered
    contexts, the exception load and the one jump): what maps resume offsets back."""
    n = sum(3 if _kind(s) == "enter" else 1 for s in stack_slots)
    return n + (1 if raise_exc else 0) + 1


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
    cell_refs: Sequence[str] = (),
    raise_exc: bool = False,
) -> CodeType:
    """Code of a function ``(___stack.., *live_locals)`` that rebuilds the value
    stack and continues ``code`` at ``offset`` (see the module docstring).

    ``cell_refs``: live cell variables passed as cell objects (shared with the caller).
    ``raise_exc``: take ``___exc`` last and raise it at ``offset`` (the breaking
    instruction raised it outside); the original's handlers take over.

    ``cells="value"``: live cell variables are parameters (fresh cells).
    ``cells="closure"``: the original's cell variables become free variables
    of the resume function -- build it with ``closure = (cells of
    code.co_cellvars, in order) + fn.__closure__`` so closures created before
    the break keep sharing them; cell variables must not be in ``live_locals``.
    """
    if cells not in ("value", "closure"):
        raise ValueError(f"cells must be 'value' or 'closure', not {cells!r}")
    slots = tuple(_kind(s) for s in stack_slots)
    live = tuple(live_locals)
    refs = tuple(cell_refs)
    key = (offset, slots, live, name, cells, refs, raise_exc)
    per_code = _cache.get(code)
    if per_code is not None and key in per_code:
        return per_code[key]
    result = _build(code, offset, slots, live, name, cells == "closure", refs, raise_exc)
    with _lock:
        per_code = _cache.setdefault(code, {})
        return per_code.setdefault(key, result)


def clear_cache() -> None:
    """Forget every resume code made so far (``autograph.reset()``: names carry a counter, so
    entries of earlier captures are never asked for again)."""
    with _lock:
        _cache.clear()


def _build(code: CodeType, offset: int, kinds: tuple, live: tuple, name: str,
           cells_in_closure: bool, refs: tuple = (), raise_exc: bool = False) -> CodeType:
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
    if len(kinds) != facts.depth[offset]:
        raise ValueError(
            f"{_where(code, offset)}: the stack of {code.co_name} holds {facts.depth[offset]} "
            f"slots at offset {offset}, got a layout of {len(kinds)}"
        )
    if refs and cells_in_closure:
        raise ValueError("cell_refs needs cells='value'")
    for ref in refs:
        if ref not in code.co_cellvars or ref not in live:
            raise ValueError(f"cell_refs: {ref!r} is not a live cell variable of {code.co_name}")
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
    if raise_exc:
        # the raise sits right before the instruction, in its protected range (after any
        # TryBegin opening there), so the exception unwinds to the instruction's own handler;
        # code reaching the instruction in the normal flow (a loop's next turn) jumps over it
        at = items.index(target_instr)
        over = Label()
        items[at:at] = [Instr("RAISE_VARARGS", 1, location=target_instr.location), over]
        items.insert(target, Instr("JUMP_FORWARD", over, location=target_instr.location))
    body = items[start:]

    params = resume_param_names(kinds, live, raise_exc=raise_exc, first_local=super_first_local(code, live))
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
    prefix = prefix_instrs(cellvars, freevars, code.co_firstlineno)
    new.extend(i for i in prefix if not (i.name == "MAKE_CELL" and i.arg.name in refs))
    for i, kind in enumerate(kinds):
        if kind == "null":
            new.append(Instr("PUSH_NULL", location=here))
            continue
        new.append(Instr("LOAD_FAST", f"___stack{i}", location=here))
        if kind == "enter":  # re-enter the block: its __exit__ takes the slot
            new.append(Instr("BEFORE_WITH", location=here))
            new.append(Instr("POP_TOP", location=here))
    if raise_exc:
        new.append(Instr("LOAD_FAST", EXC_PARAM, location=here))
    new.append(Instr("JUMP_FORWARD", label, location=here))
    new.extend(body)
    try:
        # every path of the resume is a path of the original at the same depths,
        # and the rebuilt stack is no deeper than the original's at `offset` (entering a
        # context and the raised exception need one slot more, for a moment)
        extra = 1 if raise_exc or "enter" in kinds else 0
        return assemble(new, stacksize=code.co_stacksize + extra)
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
