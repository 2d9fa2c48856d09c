"""Version-independent emission of code objects (3.11, 3.12, 3.13).

Why: generated code (the transformed entry code of a graph break, resume
functions) must be written once, not per CPython release. ``CodeBuilder``
offers one method per *operation* and lowers it to the running version's
opcodes; the pinned ``bytecode`` package (0.19.1) then computes caches,
``EXTENDED_ARG``, the stack size, the exception table and the line table.

Facts about ``bytecode`` 0.19.1 this module relies on (checked by
``tests/bytecode/test_assemble.py``):

* ``Bytecode.from_code(c).to_code()`` keeps instructions, lines, positions and
  a sufficient stack size for every function in our corpus (~650-700 code
  objects: stdlib ``json``, ``collections``, ``dataclasses``, ``inspect``,
  ``functools``, ``argparse`` and fixtures with try/with/closures/generators);
  ~85-95% come back byte for byte, the rest differ only in name order.
* Its one failure: exception-handler depths are *recomputed* as the stack level
  where a protected range starts. For a range inside a handler (3.12/3.13
  nested ``except``: the ``COPY 3; POP_EXCEPT; RERAISE`` cleanup) that gives 3
  instead of 1 and the code segfaults when the handler runs; ``from_code`` does
  not keep the original depths either (``compute_exception_stack_depths=False``
  writes 0s). ``abstract_with_offsets`` restores each ``TryBegin.stack_depth``
  from the original table and ``assemble`` then skips the recomputation.
* Its stack analysis cannot follow a jump into the middle of a protected range
  (resume functions); ``assemble(bc, stacksize=...)`` skips it when the caller
  knows the size.
* It never picks a jump direction: ``JUMP_FORWARD`` to an earlier label is an
  error. ``CodeBuilder`` therefore emits direction-free jumps and fixes the
  direction in ``to_code`` (``finalize_jumps``); on 3.12+ a backward
  conditional jump becomes an inverted forward jump over a ``JUMP_BACKWARD``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from types import CodeType
from typing import Any, Optional, Sequence, Union

import bytecode as _bc
from bytecode import Bytecode, CellVar, FreeVar, Instr, Label, TryBegin
from bytecode.instr import InstrLocation, SetLineno

__all__ = [
    "CodeBuilder",
    "Label",
    "Jump",
    "abstract_with_offsets",
    "assemble",
    "finalize_jumps",
    "prefix_instrs",
    "CO_GENERATOR_LIKE",
]

PY = sys.version_info[:2]
CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR, CO_ITERABLE_COROUTINE = 0x20, 0x80, 0x200, 0x100
CO_GENERATOR_LIKE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE
CO_NESTED = 0x10

_BINARY_OPS = {sym: n for n, (_, sym) in enumerate(__import__("dis")._nb_ops)}
_COND_KINDS = ("TRUE", "FALSE", "NONE", "NOT_NONE")
_INVERSE = {"TRUE": "FALSE", "FALSE": "TRUE", "NONE": "NOT_NONE", "NOT_NONE": "NONE"}


@dataclass
class Jump:
    """A jump whose direction is chosen at finalisation.

    ``kind`` is ``None`` for an unconditional jump, else one of TRUE, FALSE,
    NONE, NOT_NONE (``POP_JUMP_IF_<kind>``)."""

    kind: Optional[str]
    label: Label
    location: Optional[InstrLocation] = None


def _jump_kind(name: str) -> Optional[tuple[Optional[str], bool]]:
    """(kind, is_jump) for a CPython unconditional/pop-conditional jump name."""
    if name in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP"):
        return None, True
    for prefix in ("POP_JUMP_FORWARD_IF_", "POP_JUMP_BACKWARD_IF_", "POP_JUMP_IF_"):
        if name.startswith(prefix):
            return name[len(prefix):], True
    return None


def finalize_jumps(items: Sequence[Any]) -> list[Any]:
    """Replace every ``Jump`` by the running version's opcode for its direction.

    A label is "backward" when it is placed before the jump in ``items``.
    """
    pos = {id(x): n for n, x in enumerate(items) if isinstance(x, Label)}
    out: list[Any] = []
    for n, item in enumerate(items):
        if not isinstance(item, Jump):
            out.append(item)
            continue
        if id(item.label) not in pos:
            raise ValueError("jump to a label that was never placed with mark()")
        backward = pos[id(item.label)] < n
        loc = item.location
        if item.kind in ("TRUE", "FALSE") and PY >= (3, 13):
            # 3.13's POP_JUMP_IF_TRUE/FALSE require an exact bool
            out.append(Instr("TO_BOOL", location=loc))
        if item.kind is None:
            out.append(Instr("JUMP_BACKWARD" if backward else "JUMP_FORWARD", item.label, location=loc))
        elif PY < (3, 12):
            direction = "BACKWARD" if backward else "FORWARD"
            out.append(Instr(f"POP_JUMP_{direction}_IF_{item.kind}", item.label, location=loc))
        elif not backward:
            out.append(Instr(f"POP_JUMP_IF_{item.kind}", item.label, location=loc))
        else:  # 3.12+: conditional jumps are forward only
            skip = Label()
            out.append(Instr(f"POP_JUMP_IF_{_INVERSE[item.kind]}", skip, location=loc))
            out.append(Instr("JUMP_BACKWARD", item.label, location=loc))
            out.append(skip)
    return out


# --------------------------------------------------------------------------- originals

_SKIPPED_RAW = ("EXTENDED_ARG", "CACHE")


def abstract_with_offsets(code: CodeType) -> tuple[Bytecode, dict[int, int]]:
    """``Bytecode.from_code(code)`` plus a map: original byte offset of each real
    instruction -> its index in the returned ``Bytecode`` list.

    A fresh ``Bytecode`` each call (callers mutate it).
    """
    import dis

    bc = Bytecode.from_code(code)
    offsets = [i.offset for i in dis.get_instructions(code) if i.opname not in _SKIPPED_RAW]
    names = [i.opname for i in dis.get_instructions(code) if i.opname not in _SKIPPED_RAW]
    table: dict[int, int] = {}
    k = 0
    for n, item in enumerate(bc):
        if isinstance(item, Instr):
            if k >= len(offsets) or item.name != names[k]:
                raise ValueError(
                    f"bytecode package disagrees with dis on {code.co_name} at instruction "
                    f"{k}: {item.name} vs {names[k] if k < len(names) else 'end'}"
                )
            table[offsets[k]] = n
            k += 1
    if k != len(offsets):
        raise ValueError(f"bytecode package dropped instructions of {code.co_name}")
    _restore_try_depths(code, bc, table)
    return bc, table


def _restore_try_depths(code: CodeType, bc: Bytecode, table: dict[int, int]) -> None:
    """Give every ``TryBegin`` the depth of the original exception-table entry.

    ``bytecode`` 0.19.1 recomputes handler depths from the stack level where a
    protected range starts; for a range inside a handler (e.g. the cleanup of
    a nested ``except`` on 3.12) that is wrong and the result crashes CPython.
    The original table is the truth, so callers must assemble with
    ``to_code(compute_exception_stack_depths=False)`` (see ``assemble``).
    """
    import dis

    entries = list(dis._parse_exception_table(code))  # type: ignore[attr-defined]
    if not entries:
        return
    offset_of = {index: off for off, index in table.items()}
    items = list(bc)
    for n, item in enumerate(items):
        if not isinstance(item, TryBegin):
            continue
        first = next((offset_of[k] for k in range(n + 1, len(items)) if k in offset_of), None)
        entry = next((e for e in entries if first is not None and e.start <= first < e.end), None)
        if entry is None:
            raise ValueError(f"no exception-table entry for a try range of {code.co_name}")
        item.stack_depth = entry.depth


def assemble(bc: Bytecode, *, stacksize: Optional[int] = None) -> CodeType:
    """``bc.to_code()`` trusting the ``TryBegin`` depths already set (from the
    original table, or computed by ``bytecode`` when they are unset).

    ``stacksize``: pass the original's ``co_stacksize`` when ``bc`` only runs
    paths of the original at the original's depths (resume functions): then
    ``bytecode``'s own stack analysis -- which cannot follow a jump into the
    middle of a protected range -- is skipped.
    """
    unset = any(isinstance(x, TryBegin) and x.stack_depth is _bc.instr.UNSET for x in bc)
    return bc.to_code(stacksize=stacksize, compute_exception_stack_depths=unset)


def prefix_instrs(cellvars: Sequence[str], freevars: Sequence[str], lineno: int) -> list[Instr]:
    """The frame-setup instructions CPython puts first: ``COPY_FREE_VARS``,
    ``MAKE_CELL`` per cell variable, ``RESUME 0``."""
    loc = InstrLocation(lineno, lineno, None, None)
    out: list[Instr] = []
    if freevars:
        out.append(Instr("COPY_FREE_VARS", len(freevars), location=loc))
    for name in cellvars:
        out.append(Instr("MAKE_CELL", CellVar(name), location=loc))
    out.append(Instr("RESUME", 0, location=loc))
    return out


_PREFIX_OPS = ("COPY_FREE_VARS", "MAKE_CELL", "RESUME")


# --------------------------------------------------------------------------- builder

class CodeBuilder:
    """Emit operations, get a ``CodeType`` for the running Python.

    The result has the template's filename, first line, cell and free variables
    (so ``types.FunctionType(code, globals, name, defaults, closure)`` works
    with the template function's closure) and, unless overridden, its
    arguments and flags. The frame prefix (``COPY_FREE_VARS``, ``MAKE_CELL``,
    ``RESUME``) is emitted first automatically.

    Locations: every instruction gets ``self.lineno`` (default: the template's
    first line); ``emit_original`` keeps the original instruction's location
    so tracebacks point at the user's line.
    """

    def __init__(
        self,
        template: CodeType,
        *,
        name: Optional[str] = None,
        qualname: Optional[str] = None,
        argnames: Optional[Sequence[str]] = None,
        argcount: Optional[int] = None,
        posonlyargcount: Optional[int] = None,
        kwonlyargcount: Optional[int] = None,
        flags: Optional[int] = None,
        cellvars: Optional[Sequence[str]] = None,
        freevars: Optional[Sequence[str]] = None,
        prefix: bool = True,
    ) -> None:
        self.template = template
        nargs = template.co_argcount + template.co_kwonlyargcount
        nargs += bool(template.co_flags & 0x04) + bool(template.co_flags & 0x08)
        self.argnames = list(argnames if argnames is not None else template.co_varnames[:nargs])
        if argnames is None:
            self.argcount = template.co_argcount if argcount is None else argcount
            self.posonlyargcount = template.co_posonlyargcount if posonlyargcount is None else posonlyargcount
            self.kwonlyargcount = template.co_kwonlyargcount if kwonlyargcount is None else kwonlyargcount
            default_flags = template.co_flags
        else:
            self.argcount = len(self.argnames) if argcount is None else argcount
            self.posonlyargcount = posonlyargcount or 0
            self.kwonlyargcount = kwonlyargcount or 0
            default_flags = template.co_flags & ~(0x04 | 0x08)  # no *args/**kwargs
        self.flags = (default_flags & ~CO_GENERATOR_LIKE) if flags is None else flags
        self.name = name or template.co_name
        self.qualname = qualname or (name if name else getattr(template, "co_qualname", template.co_name))
        self.cellvars = list(template.co_cellvars if cellvars is None else cellvars)
        self.freevars = list(template.co_freevars if freevars is None else freevars)
        self.lineno = template.co_firstlineno
        self.items: list[Any] = []
        if prefix:
            self.items.extend(prefix_instrs(self.cellvars, self.freevars, self.lineno))

    # ---------------------------------------------------------------- low level
    def _loc(self) -> InstrLocation:
        return InstrLocation(self.lineno, self.lineno, None, None)

    def emit(self, opname: str, arg: Any = _bc.instr.UNSET) -> "CodeBuilder":
        """Escape hatch: one raw instruction for the running version."""
        if arg is _bc.instr.UNSET:
            self.items.append(Instr(opname, location=self._loc()))
        else:
            self.items.append(Instr(opname, arg, location=self._loc()))
        return self

    def label(self) -> Label:
        return Label()

    def mark(self, label: Label) -> "CodeBuilder":
        self.items.append(label)
        return self

    def _var(self, name: str) -> Union[CellVar, FreeVar]:
        if name in self.cellvars:
            return CellVar(name)
        if name in self.freevars:
            return FreeVar(name)
        raise ValueError(f"{name!r} is neither a cell nor a free variable of {self.name}")

    # ---------------------------------------------------------------- loads/stores
    def load_fast(self, name: str) -> "CodeBuilder":
        return self.emit("LOAD_FAST", name)

    def store_fast(self, name: str) -> "CodeBuilder":
        return self.emit("STORE_FAST", name)

    def delete_fast(self, name: str) -> "CodeBuilder":
        return self.emit("DELETE_FAST", name)

    def load_deref(self, name: str) -> "CodeBuilder":
        return self.emit("LOAD_DEREF", self._var(name))

    def store_deref(self, name: str) -> "CodeBuilder":
        return self.emit("STORE_DEREF", self._var(name))

    def load_closure(self, name: str) -> "CodeBuilder":
        """Push the cell object itself (to build a closure tuple)."""
        op = "LOAD_FAST" if PY >= (3, 13) else "LOAD_CLOSURE"
        if PY >= (3, 13):
            return self.emit(op, name)
        return self.emit(op, self._var(name))

    def load_global(self, name: str, push_null: bool = False) -> "CodeBuilder":
        """Push a global; with ``push_null`` also the NULL a following ``call``
        needs (placed where the running version wants it)."""
        return self.emit("LOAD_GLOBAL", (push_null, name))

    def store_global(self, name: str) -> "CodeBuilder":
        return self.emit("STORE_GLOBAL", name)

    def load_const(self, value: Any) -> "CodeBuilder":
        return self.emit("LOAD_CONST", value)

    def load_attr(self, name: str) -> "CodeBuilder":
        return self.emit("LOAD_ATTR", (False, name) if PY >= (3, 12) else name)

    def load_method(self, name: str) -> "CodeBuilder":
        """Push what ``call`` needs to call ``obj.name`` (method or attribute)."""
        if PY >= (3, 12):
            return self.emit("LOAD_ATTR", (True, name))
        return self.emit("LOAD_METHOD", name)

    def store_attr(self, name: str) -> "CodeBuilder":
        return self.emit("STORE_ATTR", name)

    def delete_attr(self, name: str) -> "CodeBuilder":
        return self.emit("DELETE_ATTR", name)

    # ---------------------------------------------------------------- calls
    def push_null(self) -> "CodeBuilder":
        return self.emit("PUSH_NULL")

    def push_null_before_callable(self) -> "CodeBuilder":
        """Call before loading a callable that ``call`` will call (3.11/3.12 order)."""
        return self.push_null() if PY < (3, 13) else self

    def push_null_after_callable(self) -> "CodeBuilder":
        """Call after loading a callable that ``call`` will call (3.13 order)."""
        return self.push_null() if PY >= (3, 13) else self

    def call(self, argc: int, kw_names: Sequence[str] = ()) -> "CodeBuilder":
        """Call with ``argc`` arguments on the stack (the last ``len(kw_names)``
        are keyword arguments), below them callable and self-or-NULL."""
        kw = tuple(kw_names)
        if kw and len(kw) > argc:
            raise ValueError(f"{len(kw)} keyword names for {argc} arguments")
        if PY >= (3, 13):
            if kw:
                self.load_const(kw)
                return self.emit("CALL_KW", argc)
            return self.emit("CALL", argc)
        if kw:
            self.emit("KW_NAMES", kw)
        if PY < (3, 12):
            self.emit("PRECALL", argc)
        return self.emit("CALL", argc)

    def call_function_ex(self, has_kwargs: bool) -> "CodeBuilder":
        return self.emit("CALL_FUNCTION_EX", int(has_kwargs))

    # ---------------------------------------------------------------- containers & stack
    def build_tuple(self, n: int) -> "CodeBuilder":
        return self.emit("BUILD_TUPLE", n)

    def build_list(self, n: int) -> "CodeBuilder":
        return self.emit("BUILD_LIST", n)

    def build_map(self, n: int) -> "CodeBuilder":
        return self.emit("BUILD_MAP", n)

    def build_slice(self, n: int) -> "CodeBuilder":
        return self.emit("BUILD_SLICE", n)

    def unpack_sequence(self, n: int) -> "CodeBuilder":
        return self.emit("UNPACK_SEQUENCE", n)

    def binary_subscr(self) -> "CodeBuilder":
        return self.emit("BINARY_SUBSCR")

    def store_subscr(self) -> "CodeBuilder":
        return self.emit("STORE_SUBSCR")

    def binary_op(self, symbol: str) -> "CodeBuilder":
        """``symbol`` as in the normal form: ``'+'``, ``'+='``, ``'@'`` ..."""
        return self.emit("BINARY_OP", _bc.BinaryOp(_BINARY_OPS[symbol]))

    def pop_top(self) -> "CodeBuilder":
        return self.emit("POP_TOP")

    def copy(self, i: int) -> "CodeBuilder":
        return self.emit("COPY", i)

    def swap(self, i: int) -> "CodeBuilder":
        return self.emit("SWAP", i)

    def return_value(self) -> "CodeBuilder":
        return self.emit("RETURN_VALUE")

    # ---------------------------------------------------------------- jumps
    def jump(self, label: Label) -> "CodeBuilder":
        self.items.append(Jump(None, label, self._loc()))
        return self

    def pop_jump_if(self, kind: str, label: Label) -> "CodeBuilder":
        if kind not in _COND_KINDS:
            raise ValueError(f"unknown jump condition {kind!r}")
        self.items.append(Jump(kind, label, self._loc()))
        return self

    def pop_jump_if_true(self, label: Label) -> "CodeBuilder":
        return self.pop_jump_if("TRUE", label)

    def pop_jump_if_false(self, label: Label) -> "CodeBuilder":
        return self.pop_jump_if("FALSE", label)

    # ---------------------------------------------------------------- originals
    def emit_original(
        self,
        code: CodeType,
        offset: int,
        *,
        jump_target: Optional[Label] = None,
    ) -> "CodeBuilder":
        """Re-emit the original instruction of ``code`` at ``offset`` with its
        location (file:line of the user's code).

        * ``CALL``: with its ``KW_NAMES``/``PRECALL`` (3.13: the kw-names
          ``LOAD_CONST`` and ``CALL_KW``); ``offset`` is the ``CALL``'s (or any of
          its parts') offset.
        * ``BINARY_SLICE``/``RETURN_CONST`` and every other non-jump instruction
          are copied as they are (names, constants and variables by name).
        * Conditional (``POP_JUMP_IF_*``) and unconditional jumps: re-targeted to
          ``jump_target`` (required); the fall-through continues after it.
        * ``FOR_ITER`` and other jumps with a stack effect that differs per
          version (``JUMP_IF_*_OR_POP``, ``SEND``) are refused: ValueError.
        """
        bc, table = abstract_with_offsets(code)
        if offset not in table:
            raise ValueError(f"no instruction at offset {offset} of {code.co_name}")
        n = table[offset]
        instrs = [x for x in bc]
        ins = instrs[n]
        group = [ins]
        # a CALL's parts: walk back over PRECALL / KW_NAMES (3.13: LOAD_CONST + CALL_KW)
        if ins.name in ("KW_NAMES", "PRECALL") or (
            PY >= (3, 13) and ins.name == "LOAD_CONST" and n + 1 < len(instrs)
            and isinstance(instrs[n + 1], Instr) and instrs[n + 1].name == "CALL_KW"
        ):
            while not (isinstance(instrs[n], Instr) and instrs[n].name in ("CALL", "CALL_KW")):
                n += 1
            ins = instrs[n]
        if ins.name in ("CALL", "CALL_KW"):
            group = [ins]
            k = n - 1
            while k >= 0:
                prev = instrs[k]
                if isinstance(prev, (SetLineno,)) or (isinstance(prev, Instr) and (
                    prev.name in ("KW_NAMES", "PRECALL")
                    or (ins.name == "CALL_KW" and prev.name == "LOAD_CONST" and len(group) == 1)
                )):
                    if isinstance(prev, Instr):
                        group.insert(0, prev)
                    k -= 1
                    continue
                break
        kind = _jump_kind(ins.name)
        if kind is not None:
            if jump_target is None:
                raise ValueError(f"{ins.name} at offset {offset} needs jump_target")
            self.items.append(Jump(kind[0], jump_target, ins.location))
            return self
        if ins.has_jump():
            raise ValueError(
                f"cannot re-emit {ins.name} at offset {offset} of {code.co_name}: "
                "its stack effect differs per Python version"
            )
        for g in group:
            self.items.append(g.copy())
        return self

    # ---------------------------------------------------------------- result
    def to_bytecode(self) -> Bytecode:
        bc = Bytecode(finalize_jumps(self.items))
        bc.argnames = list(self.argnames)
        bc.argcount = self.argcount
        bc.posonlyargcount = self.posonlyargcount
        bc.kwonlyargcount = self.kwonlyargcount
        bc.flags = self.flags
        bc.name = self.name
        if hasattr(bc, "qualname"):
            bc.qualname = self.qualname
        bc.filename = self.template.co_filename
        bc.first_lineno = self.template.co_firstlineno
        bc.cellvars = list(self.cellvars)
        bc.freevars = list(self.freevars)
        return bc

    def to_code(self) -> CodeType:
        return assemble(self.to_bytecode())
