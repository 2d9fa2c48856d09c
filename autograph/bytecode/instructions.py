"""Normalised CPython instructions: one form per operation across 3.11, 3.12 and 3.13.

Why: the symbolic interpreter should dispatch on *operations*, not on the
encoding quirks of each CPython release. ``normalize(code)`` decodes a code
object once (cached per code object) into a list of small mutable
``Instruction`` objects whose jump targets and exception handlers are object
references instead of byte offsets.

Normal forms (what the interpreter sees)
----------------------------------------
* Removed: ``EXTENDED_ARG`` (its value is folded into ``arg``), ``CACHE``,
  ``NOP`` (all of them -- a jump or handler that targeted one now targets the
  next instruction), ``PRECALL`` (3.11), ``KW_NAMES`` (folded into ``CALL``).
* ``CALL``: ``arg`` = argc as CPython counts it (positional + keyword args,
  not the callable/self/NULL); ``argval`` = tuple of keyword names (``()``
  when none). 3.11 ``KW_NAMES``+``PRECALL``+``CALL``, 3.12 ``KW_NAMES``+``CALL``
  and 3.13 ``LOAD_CONST names``+``CALL_KW`` all become this one ``CALL``.
  Stack layout below the args: 3.11/3.12 ``[NULL|callable, callable|self]``;
  3.13 ``[callable, NULL|self]`` (CPython changed the order; use ``CALL_LAYOUT``).
* ``LOAD_GLOBAL``: ``argval`` = name, push-NULL flag in ``arg & 1`` and in
  ``push_null``. (3.11/3.12 push NULL *before* the global, 3.13 *after*.)
* ``LOAD_ATTR`` with the 3.12+ method bit -> ``LOAD_METHOD`` (as in 3.11);
  ``arg`` = the name index in ``co_names`` for both, ``argval`` = the name.
* ``LOAD_SUPER_ATTR`` (3.12+) kept: ``argval`` = name, ``flags`` holds
  ``"method"`` (bit 0) and/or ``"two_args"`` (bit 1: ``super(cls, self)`` form).
* ``BINARY_SLICE`` -> ``BUILD_SLICE 2`` + ``BINARY_SUBSCR``;
  ``STORE_SLICE`` -> ``BUILD_SLICE 2`` + ``STORE_SUBSCR``.
* ``RETURN_CONST c`` -> ``LOAD_CONST c`` + ``RETURN_VALUE``.
* ``JUMP_FORWARD``/``JUMP_BACKWARD``/``JUMP_BACKWARD_NO_INTERRUPT`` -> ``JUMP``.
* 3.11 ``POP_JUMP_{FORWARD,BACKWARD}_IF_X`` -> ``POP_JUMP_IF_X``
  (X in TRUE, FALSE, NONE, NOT_NONE). 3.11's ``JUMP_IF_{TRUE,FALSE}_OR_POP`` kept.
* ``COMPARE_OP``: ``argval`` = operator string (``'<'``, ``'=='`` ...); the 3.13
  "coerce to bool" bit becomes ``flags = {"to_bool"}``.
* ``BINARY_OP``: ``argval`` = operator symbol (``'+'``, ``'+='``, ``'@'`` ...).
* ``FOR_ITER``: ``target`` = first instruction run after exhaustion, with the
  iterator already popped (3.11 semantics). 3.12's ``END_FOR`` and 3.13's
  ``END_FOR``+``POP_TOP`` that follow a loop are dropped -- CPython skips them
  on exhaustion anyway. **Interpreter:** on exhaustion pop the iterator and
  continue at ``target``; there is no ``END_FOR`` to execute.
* 3.11 ``LIST_TO_TUPLE``/``UNARY_POSITIVE`` -> ``CALL_INTRINSIC_1`` with
  ``argval`` ``'INTRINSIC_LIST_TO_TUPLE'``/``'INTRINSIC_UNARY_POSITIVE'``
  (the 3.12 form); ``CALL_INTRINSIC_1/2``'s ``argval`` is the intrinsic's name.
* 3.13 ``LOAD_FAST_LOAD_FAST``, ``STORE_FAST_LOAD_FAST``,
  ``STORE_FAST_STORE_FAST`` -> two ``LOAD_FAST``/``STORE_FAST``.
* ``KW_NAMES`` never appears; ``LOAD_FAST_CHECK``/``LOAD_FAST_AND_CLEAR`` are
  kept; 3.13 ``TO_BOOL`` is kept (meaning: replace TOS by ``bool(TOS)``).
* Every other instruction keeps CPython's name, ``arg`` and ``dis`` ``argval``.

Each instruction keeps ``offset``: the byte offset of the original instruction
it came from (the opcode itself, after any ``EXTENDED_ARG`` prefix). The
second half of a split has the same offset and ``synthetic=True``. ``exn`` is
the exception-table entry covering the original instruction, or ``None``.

The list returned by ``normalize`` is shared through the cache: treat it as
read-only (``copy_instructions`` gives a private copy).
"""
from __future__ import annotations

import dis
import functools
import opcode as _opcode
import sys
import threading
import weakref
from dataclasses import dataclass
from types import CodeType
from typing import Any, Iterable, Optional

__all__ = [
    "CALL_LAYOUT",
    "ExnEntry",
    "Instruction",
    "normalize",
    "instruction_at",
    "index_at",
    "format_instructions",
    "copy_instructions",
    "exception_table",
]

PY = sys.version_info[:2]

# Order of the two slots below a CALL's arguments.
CALL_LAYOUT: tuple[str, str] = (
    ("callable", "self_or_null") if PY >= (3, 13) else ("null_or_callable", "callable_or_self")
)


@dataclass
class ExnEntry:
    """Handler of an instruction: where to go, the stack depth to unwind to,
    and whether the offset of the raising instruction is pushed (``lasti``)."""

    target: "Instruction"
    depth: int
    lasti: bool

    def __repr__(self) -> str:
        lasti = " lasti" if self.lasti else ""
        return f"ExnEntry(-> {self.target.offset}, depth={self.depth}{lasti})"


class Instruction:
    """One normalised instruction (see the module docstring for the forms)."""

    __slots__ = (
        "opname",
        "arg",
        "argval",
        "offset",
        "lineno",
        "target",
        "exn",
        "starts_line",
        "synthetic",
        "flags",
        "positions",
        "index",
    )

    def __init__(
        self,
        opname: str,
        arg: Optional[int] = None,
        argval: Any = None,
        offset: int = -1,
        lineno: Optional[int] = None,
        target: Optional["Instruction"] = None,
        exn: Optional[ExnEntry] = None,
        starts_line: bool = False,
        synthetic: bool = False,
        flags: frozenset = frozenset(),
        positions: object = None,
        index: int = -1,
    ) -> None:
        self.opname = opname
        self.arg = arg
        self.argval = argval
        self.offset = offset
        self.lineno = lineno
        self.target = target
        self.exn = exn
        self.starts_line = starts_line
        self.synthetic = synthetic
        self.flags = flags
        self.positions = positions
        self.index = index  # position in the normalised list

    @property
    def push_null(self) -> bool:
        """``LOAD_GLOBAL`` pushes a NULL too (for a following ``CALL``)."""
        return self.opname == "LOAD_GLOBAL" and bool((self.arg or 0) & 1)

    @property
    def is_jump(self) -> bool:
        return self.target is not None

    def __repr__(self) -> str:
        return f"<Instruction {_format_one(self)}>"


# --------------------------------------------------------------------------- decoding

_JUMP_OPS = frozenset(
    _opcode.opname[o]
    for o in set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ()))
)
_JUMP_RENAMES = {
    "JUMP_FORWARD": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "JUMP_NO_INTERRUPT": "JUMP",
}
for _x in ("TRUE", "FALSE", "NONE", "NOT_NONE"):
    _JUMP_RENAMES[f"POP_JUMP_FORWARD_IF_{_x}"] = f"POP_JUMP_IF_{_x}"
    _JUMP_RENAMES[f"POP_JUMP_BACKWARD_IF_{_x}"] = f"POP_JUMP_IF_{_x}"

_DROPPED = frozenset({"EXTENDED_ARG", "CACHE", "NOP", "PRECALL"})

# Raw opnames that never reach ``normalize``'s output, and the form they take instead (the
# opcode inventory test checks this against the normaliser and the capture's handler table).
REWRITTEN: dict[str, str] = {
    **{name: "removed" for name in _DROPPED},
    **{name: new for name, new in _JUMP_RENAMES.items()},
    "KW_NAMES": "folded into the following CALL (argval: the keyword names)",
    "CALL_KW": "CALL with its keyword names as argval (the LOAD_CONST before it folded in)",
    "BINARY_SLICE": "BUILD_SLICE 2 + BINARY_SUBSCR",
    "STORE_SLICE": "BUILD_SLICE 2 + STORE_SUBSCR",
    "RETURN_CONST": "LOAD_CONST + RETURN_VALUE",
    "LIST_TO_TUPLE": "CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE",
    "UNARY_POSITIVE": "CALL_INTRINSIC_1 INTRINSIC_UNARY_POSITIVE",
    "LOAD_FAST_LOAD_FAST": "LOAD_FAST + LOAD_FAST",
    "STORE_FAST_LOAD_FAST": "STORE_FAST + LOAD_FAST",
    "STORE_FAST_STORE_FAST": "STORE_FAST + STORE_FAST",
}
_BINARY_OP_SYMBOLS = [sym for _, sym in dis._nb_ops]  # type: ignore[attr-defined]
_INTRINSIC_1 = getattr(_opcode, "_intrinsic_1_descs", None)
_INTRINSIC_2 = getattr(_opcode, "_intrinsic_2_descs", None)


def exception_table(code: CodeType) -> list:
    """Raw entries ``(start, end, target, depth, lasti)``; ``end`` is exclusive."""
    return list(dis._parse_exception_table(code))  # type: ignore[attr-defined]


@dataclass
class _Raw:
    """An original instruction as ``dis`` decoded it, plus its line."""

    opname: str
    arg: Any  # int for every opcode normalize reads it from (dis: None when HAVE_ARGUMENT is false)
    argval: Any
    offset: int
    lineno: Optional[int]
    starts_line: bool
    positions: object


def _raw_instructions(code: CodeType) -> list[_Raw]:
    out: list[_Raw] = []
    lineno = code.co_firstlineno
    for ins in dis.get_instructions(code):
        pos = getattr(ins, "positions", None)
        line = pos.lineno if pos is not None and pos.lineno is not None else None
        if PY >= (3, 13):
            starts = bool(ins.starts_line)
        else:
            starts = ins.starts_line is not None
        if line is None:
            line = lineno  # artificial instruction: report the last real line
        else:
            lineno = line
        out.append(_Raw(ins.opname, ins.arg, ins.argval, ins.offset, line, starts, pos))
    return out


def _kw_names(code: CodeType, raw: _Raw) -> tuple:
    names = code.co_consts[raw.arg]
    assert isinstance(names, tuple), names
    return names


def _is_for_iter_tail(raws: list[_Raw], i: int, targeted_by_other: set[int]) -> int:
    """Number of instructions at ``raws[i]`` that CPython skips when a
    ``FOR_ITER`` is exhausted (0 when ``raws[i]`` is not such a tail)."""
    r = raws[i]
    if r.opname != "END_FOR" or r.offset in targeted_by_other:
        return 0
    if PY >= (3, 13):
        nxt = raws[i + 1] if i + 1 < len(raws) else None
        if nxt is not None and nxt.opname == "POP_TOP" and nxt.offset not in targeted_by_other:
            return 2
        return 0
    return 1


def _emit(out: list[Instruction], r: _Raw, opname: str, arg: Any = None, argval: Any = None, *,
          synthetic: bool = False, flags: frozenset = frozenset()) -> Instruction:
    """Append one normalised instruction made from the raw instruction ``r`` (its offset,
    line and positions; a ``synthetic`` second half never starts a line)."""
    ins = Instruction(
        opname,
        arg,
        argval,
        r.offset,
        r.lineno,
        starts_line=r.starts_line and not synthetic,
        synthetic=synthetic,
        flags=flags,
        positions=r.positions,
    )
    ins.index = len(out)
    out.append(ins)
    return ins


def _normalize(code: CodeType) -> list[Instruction]:
    raws = _raw_instructions(code)
    jump_targets: dict[int, list[str]] = {}
    for r in raws:
        if r.opname in _JUMP_OPS:
            jump_targets.setdefault(r.argval, []).append(r.opname)
    for e in exception_table(code):
        jump_targets.setdefault(e.target, []).append("<handler>")
    # offsets targeted by anything other than FOR_ITER (those END_FORs must stay)
    targeted_by_other = {
        off for off, ops in jump_targets.items() if any(op != "FOR_ITER" for op in ops)
    }

    out: list[Instruction] = []
    # original offset -> index into `out` of the instruction that runs there
    # (None: forward to the next emitted instruction)
    starts: dict[int, Optional[int]] = {}
    # original offset of a FOR_ITER tail -> index of the instruction after the tail
    pending_kw: Optional[tuple] = None
    skip = 0
    for i, r in enumerate(raws):
        if skip:
            skip -= 1
            starts[r.offset] = None
            continue
        tail = _is_for_iter_tail(raws, i, targeted_by_other)
        if tail:
            starts[r.offset] = None
            skip = tail - 1
            continue
        op = r.opname
        if op in _DROPPED:
            starts[r.offset] = None
            continue
        if op == "KW_NAMES":
            pending_kw = _kw_names(code, r)
            starts[r.offset] = None
            continue
        if (
            op == "LOAD_CONST"
            and PY >= (3, 13)
            and i + 1 < len(raws)
            and raws[i + 1].opname == "CALL_KW"
            and raws[i + 1].offset not in jump_targets
        ):
            pending_kw = r.argval
            starts[r.offset] = None
            continue

        emit = functools.partial(_emit, out, r)
        starts[r.offset] = len(out)
        if op in _JUMP_OPS:
            emit(_JUMP_RENAMES.get(op, op), r.arg, r.argval)  # target resolved below
        elif op in ("CALL", "CALL_KW"):
            emit("CALL", r.arg, tuple(pending_kw) if pending_kw else ())
            pending_kw = None
        elif op == "LOAD_ATTR" and PY >= (3, 12):
            if r.arg & 1:
                emit("LOAD_METHOD", r.arg >> 1, r.argval)
            else:
                emit("LOAD_ATTR", r.arg >> 1, r.argval)
        elif op == "LOAD_SUPER_ATTR":
            flags = frozenset(
                f for f, bit in (("method", 1), ("two_args", 2)) if r.arg & bit
            )
            emit(op, r.arg, r.argval, flags=flags)
        elif op == "BINARY_SLICE":
            emit("BUILD_SLICE", 2, 2)
            emit("BINARY_SUBSCR", synthetic=True)
        elif op == "STORE_SLICE":
            emit("BUILD_SLICE", 2, 2)
            emit("STORE_SUBSCR", synthetic=True)
        elif op == "RETURN_CONST":
            emit("LOAD_CONST", r.arg, r.argval)
            emit("RETURN_VALUE", synthetic=True)
        elif op == "COMPARE_OP":
            flags = frozenset({"to_bool"}) if PY >= (3, 13) and r.arg & 16 else frozenset()
            emit(op, r.arg, r.argval, flags=flags)
        elif op == "BINARY_OP":
            emit(op, r.arg, _BINARY_OP_SYMBOLS[r.arg])
        elif op == "LIST_TO_TUPLE":
            emit("CALL_INTRINSIC_1", 6, "INTRINSIC_LIST_TO_TUPLE")
        elif op == "UNARY_POSITIVE":
            emit("CALL_INTRINSIC_1", 5, "INTRINSIC_UNARY_POSITIVE")
        elif op == "CALL_INTRINSIC_1" and _INTRINSIC_1 is not None:
            emit(op, r.arg, _INTRINSIC_1[r.arg])
        elif op == "CALL_INTRINSIC_2" and _INTRINSIC_2 is not None:
            emit(op, r.arg, _INTRINSIC_2[r.arg])
        elif op in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
            first, second = op.split("_FAST_")[0], op.split("_FAST_")[1].replace("_FAST", "")
            n1, n2 = r.argval
            emit(f"{first}_FAST", r.arg >> 4, n1)
            emit(f"{second}_FAST", r.arg & 15, n2, synthetic=True)
        else:
            emit(op, r.arg, r.argval)

    # forward removed offsets to the next emitted instruction
    index_of: dict[int, int] = {}
    nxt: Optional[int] = None
    for r in reversed(raws):
        idx = starts.get(r.offset)
        if idx is not None:
            nxt = idx
        if nxt is not None:
            index_of[r.offset] = nxt

    def resolve(off: int) -> Instruction:
        try:
            return out[index_of[off]]
        except KeyError:
            raise ValueError(
                f"{code.co_filename}:{code.co_firstlineno}: jump to offset {off} in "
                f"{code.co_name} has no instruction after it"
            ) from None

    position = {r.offset: n for n, r in enumerate(raws)}
    for ins in out:
        if ins.synthetic or raws[position[ins.offset]].opname not in _JUMP_OPS:
            continue
        dest = ins.argval
        if ins.opname == "FOR_ITER" and PY >= (3, 12):
            # CPython skips END_FOR (3.13: END_FOR + POP_TOP) on exhaustion
            n = position[dest]
            if raws[n].opname == "END_FOR":
                n += 2 if PY >= (3, 13) and raws[n + 1].opname == "POP_TOP" else 1
                dest = raws[n].offset
        ins.target = resolve(dest)
        ins.argval = ins.target.offset

    entries = exception_table(code)
    if entries:
        exn_cache: dict[tuple, ExnEntry] = {}
        for ins in out:
            for e in entries:
                if e.start <= ins.offset < e.end:
                    key = (e.target, e.depth, e.lasti)
                    entry = exn_cache.get(key)
                    if entry is None:
                        entry = exn_cache[key] = ExnEntry(resolve(e.target), e.depth, e.lasti)
                    ins.exn = entry
                    break
    return out


# --------------------------------------------------------------------------- public API

_cache: "weakref.WeakKeyDictionary[CodeType, list[Instruction]]" = weakref.WeakKeyDictionary()
_offset_cache: "weakref.WeakKeyDictionary[CodeType, dict[int, int]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def normalize(code: CodeType) -> list[Instruction]:
    """The normalised instructions of ``code`` (decoded once, then cached)."""
    got = _cache.get(code)
    if got is not None:
        return got
    result = _normalize(code)
    with _lock:
        return _cache.setdefault(code, result)


def _offset_index(code: CodeType) -> dict[int, int]:
    got = _offset_cache.get(code)
    if got is not None:
        return got
    instructions = normalize(code)
    table: dict[int, int] = {}
    raw_offsets = [i.offset for i in dis.get_instructions(code)]
    for ins in instructions:
        if not ins.synthetic and ins.offset not in table:
            table[ins.offset] = ins.index
    # removed instructions (NOP, EXTENDED_ARG, KW_NAMES ...) forward to the next one
    nxt: Optional[int] = None
    for off in reversed(raw_offsets):
        if off in table:
            nxt = table[off]
        elif nxt is not None:
            table[off] = nxt
    with _lock:
        return _offset_cache.setdefault(code, table)


def index_at(code: CodeType, offset: int) -> int:
    """Index in ``normalize(code)`` of the instruction that runs at ``offset``."""
    try:
        return _offset_index(code)[offset]
    except KeyError:
        raise ValueError(f"no instruction at offset {offset} in {code.co_name}") from None


def instruction_at(code: CodeType, offset: int) -> Instruction:
    """The normalised instruction that runs at byte ``offset`` of ``code``.

    For a removed instruction (``NOP``, ``EXTENDED_ARG``, ``KW_NAMES`` ...) this
    is the next instruction that remains; for a split one, its first half.
    """
    return normalize(code)[index_at(code, offset)]


def copy_instructions(instructions: list[Instruction]) -> list[Instruction]:
    """A deep copy with targets and handlers pointing into the copy."""
    new = [
        Instruction(
            i.opname, i.arg, i.argval, i.offset, i.lineno, None, None,
            i.starts_line, i.synthetic, i.flags, i.positions, n,
        )
        for n, i in enumerate(instructions)
    ]
    pos = {id(i): n for n, i in enumerate(instructions)}
    exn_map: dict[int, ExnEntry] = {}
    for old, ins in zip(instructions, new):
        if old.target is not None:
            ins.target = new[pos[id(old.target)]]
        if old.exn is not None:
            e = exn_map.get(id(old.exn))
            if e is None:
                e = exn_map[id(old.exn)] = ExnEntry(
                    new[pos[id(old.exn.target)]], old.exn.depth, old.exn.lasti
                )
            ins.exn = e
    return new


def _format_one(ins: Instruction) -> str:
    off = "   -" if ins.offset < 0 else f"{ins.offset:4d}"
    star = "+" if ins.synthetic else " "
    text = f"{off}{star} {ins.opname:<22}"
    if ins.opname == "CALL":
        text += f" {ins.arg}" + (f" kw={ins.argval!r}" if ins.argval else "")
    elif ins.target is not None:
        text += f" to {ins.target.offset}" + ("+" if ins.target.synthetic else "")
    elif ins.argval is not None or ins.arg is not None:
        text += f" {ins.argval!r}"
    if ins.flags:
        text += " [" + ",".join(sorted(ins.flags)) + "]"
    if ins.exn is not None:
        text += f"  exn->{ins.exn.target.offset} d{ins.exn.depth}" + (" lasti" if ins.exn.lasti else "")
    return text


def format_instructions(instructions: Iterable[Instruction]) -> str:
    """Readable listing: line, offset (+ marks a synthesized half), op, arg,
    jump target and exception handler."""
    lines = []
    last_line = None
    for ins in instructions:
        line = f"{ins.lineno:5d}" if ins.lineno != last_line and ins.lineno is not None else "     "
        last_line = ins.lineno
        lines.append(f"{line} {_format_one(ins)}")
    return "\n".join(lines)
