"""Capture the real frame state of a function at an offset, for resume tests.

The function's code is copied with a probe inserted before the instruction
at ``offset``: the probe copies the value-stack slots into a tuple, calls
``locals()``, collects the cell objects and hands them to a callback that runs
the resume function right there; the original run is then abandoned, so the
resume sees exactly the live state -- no hand-written expectations.
"""
from __future__ import annotations

import copy
import dis
import sys
import types
from dataclasses import dataclass

from bytecode import CellVar, Instr

from autograph.bytecode.assemble import abstract_with_offsets, assemble

PY = sys.version_info[:2]
_NULL_PUSHERS = {"PUSH_NULL", "LOAD_METHOD"}
_NULL_CONSUMERS = {"CALL", "CALL_KW", "CALL_FUNCTION_EX"}


@dataclass
class Snapshot:
    """Live frame state at the probe: the value-stack slots (bottom first),
    ``locals()`` and (3.11/3.12) the cell objects of ``co_cellvars``."""

    stack: tuple
    locals: dict
    cells: tuple | None


class _Forked(BaseException):  # not swallowed by `except Exception` / __exit__
    def __init__(self, result):
        self.result = result


class _ProbeFailed(Exception):
    pass


def _call(argc):
    if PY < (3, 12):
        return [Instr("PRECALL", argc), Instr("CALL", argc)]
    return [Instr("CALL", argc)]


def pending_null_calls(code) -> dict:
    """offset -> number of stack slots that may hold a NULL there (max over paths).

    Tracks the stack depth of each NULL pushed for a call (``PUSH_NULL``,
    ``LOAD_GLOBAL``/``LOAD_ATTR`` with the NULL bit, ``LOAD_METHOD``) until the
    call consumes it; an exception edge keeps only NULLs below the handler's
    depth. 0 means every slot is a value."""
    from autograph.bytecode.stackdepth import frame_facts

    depth = frame_facts(code).depth
    instrs = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE",)]
    at = {i.offset: n for n, i in enumerate(instrs)}
    table = list(dis._parse_exception_table(code))
    jumps = set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ()))
    terminal = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
                "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
    seen: set = set()
    result: dict = {}
    work = [(0, ())]

    def keep(nulls, new_depth, consumed):
        top = new_depth - 1 if consumed else new_depth  # a call's result is a value
        return tuple(x for x in nulls if x < top)

    while work:
        n, nulls = work.pop()
        if n >= len(instrs) or (n, nulls) in seen:
            continue
        seen.add((n, nulls))
        ins = instrs[n]
        result[ins.offset] = max(result.get(ins.offset, 0), len(nulls))
        d = depth.get(ins.offset, 0)
        name = ins.opname
        method_bit = ins.arg is not None and ins.arg & 1
        pushed: tuple = ()
        if name == "PUSH_NULL":
            pushed = (d,)
        elif name == "LOAD_GLOBAL" and method_bit:
            pushed = (d, d + 1)  # NULL below (3.11/3.12) or above (3.13) the global
        elif name == "LOAD_METHOD" or (name == "LOAD_ATTR" and PY >= (3, 12) and method_bit):
            pushed = (d - 1, d)  # either slot of the pair may be the NULL
        elif name == "LOAD_FAST_AND_CLEAR":
            pushed = (d,)  # NULL when the saved variable was unbound
        elif name == "LOAD_SUPER_ATTR" and method_bit:
            pushed = (d - 3, d - 2)
        consumed = name in _NULL_CONSUMERS
        if name == "SWAP":  # follow NULLs that change place
            a, b = d - 1, d - ins.arg
            nulls = tuple(b if x == a else a if x == b else x for x in nulls)
        elif name == "COPY" and (d - ins.arg) in nulls:
            pushed = (d,)
        for e in table:
            if e.start <= ins.offset < e.end:
                work.append((at[e.target], tuple(x for x in nulls if x < e.depth)))
                break
        if ins.opcode in jumps and ins.argval in depth:
            work.append((at[ins.argval], keep(nulls, depth[ins.argval], consumed) + pushed))
        if name not in terminal and n + 1 < len(instrs):
            nxt = instrs[n + 1].offset
            if nxt in depth:
                work.append((n + 1, keep(nulls, depth[nxt], consumed) + pushed))
    return result


def fork_at(fn: types.FunctionType, args: tuple, offset: int, depth: int,
            continue_with, visit: int = 0):
    """Run ``fn(*args)`` until the ``visit``-th time it reaches ``offset``, then
    return ``continue_with(Snapshot)`` instead of letting the original go on
    (so nothing mutates the state first). ``None`` if ``offset`` is never
    reached that often."""
    bc, table = abstract_with_offsets(fn.__code__)
    cells = fn.__code__.co_cellvars if PY < (3, 13) else ()
    probe = [Instr("LOAD_GLOBAL", (True, "__ag_record"))]
    for _ in range(depth):  # slot p sits at COPY index depth + 2 + k - p; copied with k == p
        probe.append(Instr("COPY", depth + 2))
    probe.append(Instr("BUILD_TUPLE", depth))
    probe.append(Instr("LOAD_GLOBAL", (True, "locals")))
    probe += _call(0)
    for name in cells:
        probe.append(Instr("LOAD_CLOSURE", CellVar(name)))
    probe.append(Instr("BUILD_TUPLE", len(cells)))
    probe += _call(3)
    probe.append(Instr("POP_TOP"))
    index = table[offset]
    items = list(bc)
    items[index:index] = probe
    bc.clear()
    bc.extend(items)
    code = assemble(bc, stacksize=fn.__code__.co_stacksize + depth + len(cells) + 4)
    seen = [0]

    def record(stack, loc, cell_objs):
        if seen[0] < visit:
            seen[0] += 1
            return None
        snap = Snapshot(stack, dict(loc), cell_objs if PY < (3, 13) else None)
        # freeze the answer: the abandoned original still runs its finally/with
        # exits while _Forked unwinds, and could mutate shared objects
        try:
            result = copy.deepcopy(continue_with(snap))
        except Exception as e:  # a failing check must fail the test, not look "unreached"
            raise _ProbeFailed() from e
        raise _Forked(result)

    g = dict(fn.__globals__)
    g["__ag_record"] = record
    twin = types.FunctionType(code, g, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__kwdefaults__ = fn.__kwdefaults__
    try:
        twin(*args)
    except _Forked as f:
        return f.result
    except _ProbeFailed as e:
        raise e.__cause__
    except Exception:  # noqa: BLE001 - the original raised before reaching offset
        return None
    return None
