"""The transformed entry of a capture, written as Python source.

The entry has the original signature; it calls the compiled graph once, rebuilds
the values live at the break (graph outputs, inputs by source, constants,
containers — each mutable object once, so aliasing holds), runs the breaking
instruction natively, and returns the resume function's result. Reading it is
reading what autograph does (``CaptureResult.transformed_source``).
"""
from __future__ import annotations

import builtins
import contextlib
import dis
import itertools
import linecache
import operator
import re
import types
from typing import Any, Callable, Hashable, Iterator

from autograph.bytecode.instructions import Instruction, normalize
from autograph.bytecode.line_table import Position, relocated, relocated_by_line
from autograph.bytecode.liveness import live_locals_at
from autograph.bytecode.resume import make_resume_code, preamble_length, super_first_local
from autograph.capture.core.breaks import CaptureBug, Unsupported, break_kind
from autograph.capture.core.base import NULL, Value
from autograph.capture.engine.code_origins import CodeObjectMap
from autograph.capture.engine.frame_marks import TailCall, mark_entry
from autograph.guards.check import signature_source

NO_RESUME = break_kind(
    "no-resume", "the code after the graph break cannot be continued in a resume function (inside an "
    "`except` handler, or while an exception unwinds)", "move the code that breaks out of the `except` block")
_resume_counter = itertools.count(1)
# resume functions are cached in the captured function's module globals under this name (shared by
# the resumes of resumes), so they and the shims they hold die with the module and autograph.reset()
RESUMES_ATTR = "__autograph_resumes__"
# resume code -> (original code, {offset in resume code: offset in original}); by identity (equal
# resume codes each keep their entry), dying with the resume code
_ORIGIN: "CodeObjectMap[tuple[types.CodeType, dict[int, int]]]" = CodeObjectMap()


_CO_GENERATOR_LIKE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|__out\[\d+\]|-?\d+(\.\d+)?(e-?\d+)?|None|True|False")


def _module_identity(user_globals: dict) -> dict[str, Any]:
    """What the entry's globals share with the user's module so its frame reads as the module's:
    ``__name__`` (``module=`` warning filters, ``sys._getframe(1).f_globals["__name__"]`` of
    namedtuple and Enum) and the ``__warningregistry__`` (``"default"``: once per location)."""
    name = user_globals.get("__name__")
    if not isinstance(name, str):
        return {}
    return {"__name__": name, "__warningregistry__": user_globals.setdefault("__warningregistry__", {})}


class _Expr(Value):
    """A value already held in a variable of the generated code."""

    def __init__(self, text: str):
        self.text = text

    def reconstruct(self, cg):
        return self.text


class Codegen:
    def __init__(self, tx, fn: types.FunctionType, wrap_nested: Callable, backend: Any = None):
        self.tx = tx
        self.backend = backend  # the settings' backend: whether ``opt.step()`` is compiled (step_call)
        self.fn = fn
        self.wrap_nested = wrap_nested
        self.ns: dict[str, Any] = {"__builtins__": builtins, "__G": fn.__globals__, **_module_identity(fn.__globals__)}
        self.outputs: list = []
        self._out_index: dict = {}
        self.pre: list[str] = []
        # statements before the graph call: snapshots of what side effects replayed after the
        # graph will change (families/live_iterators.py)
        self.prologue: list[str] = []
        # statements first of all: the graph's inputs read and pre-checked (prechecks.py)
        self.checks: list[str] = []
        self._shared: dict[Hashable, str] = {}  # what is read (id of a value, or a key) -> its name in pre
        self._consts: dict[int, str] = {}
        self._n = itertools.count()
        self.resumes: list = []
        # a resume function's call (``R(args)``, written ``return R(args)``) -> the same call as a
        # tail call (``__tail_call(R, args)``) in the entry the shim runs
        self.tail_calls: dict[str, str] = {}
        # cells of the frame already handed to a resume function by value (see resume_call)
        self.cells_by_value: set[int] = set()
        # replayed side effects may store where a value was read from (`old = o.t; o.t = x`): values
        # rebuilt from their sources are then read first, before the replay (cg.pre runs before it)
        from autograph.capture.families import side_effects
        self.read_sources_first = side_effects.pending_in(tx)
        # RemainingSource -> the name of its snapshot in the prologue (families/live_iterators.py)
        self.remaining_snapshots: dict = {}

    def user_line_call(self, where: tuple) -> str | None:
        """The name of a callable ``(fn, *args, **kwargs)`` that calls ``fn`` from a frame claiming
        the user's instruction ``where`` (``(code, offset, lineno, globals)``, families/side_effects.py):
        the file, line, function name and module globals that logging and warnings read from the
        caller's frame (engine/user_sites.py). None when the instruction has no line."""
        from autograph.capture.engine.user_sites import user_site
        code, offset, lineno, fn_globals = where
        code, _ = origin_of(code, offset)
        site = user_site(code, lineno, fn_globals)
        return None if site is None else self.const(site.call)

    # --- expressions -----------------------------------------------------------
    def const(self, obj: Any) -> str:
        key = id(obj)
        if key not in self._consts:
            name = f"__c{next(self._n)}"
            self.ns[name] = obj
            self._consts[key] = name
        return self._consts[key]

    def bind(self, obj: Any, name: str) -> str:
        """Bind ``obj`` under its readable ``name`` (``__resume_at_30_1``) so the source reads as it runs."""
        if self.ns.get(name, obj) is not obj or not name.isidentifier():
            return self.const(obj)  # name taken by another object: a generated name is still correct
        self.ns[name] = obj
        self._consts[id(obj)] = name
        return name

    def source_expr(self, source) -> str:
        """Code reading ``source`` in the entry (the ``SourceRenderer`` of autograph.guards.sources)."""
        return source.render(self)

    expr = source_expr

    def constant(self, obj: Any, hint: str) -> str:
        return self.const(obj)

    def global_read(self, name: str) -> str:
        if name in self.fn.__globals__:
            return f"__G[{name!r}]"
        return self.const(getattr(builtins, name))

    def global_state(self, kind: str) -> str:
        raise Unsupported(f"cannot rebuild a value from global state {kind!r}", kind="cannot-rebuild")

    def tensor(self, tv) -> str:
        node = tv.node
        if node.op == "placeholder":
            for src, _real, n in self.tx.graph.inputs:
                if n is node:
                    return self.read_before_replay(tv, self.source_expr(tv.source or src))
        if node.op == "get_attr":
            if tv.source is not None:
                return self.source_expr(tv.source)
            return self.const(getattr(self.tx.graph.root, node.target))
        if node not in self._out_index:
            self._out_index[node] = len(self.outputs)
            self.outputs.append(node)
        return f"__out[{self._out_index[node]}]"

    def shared(self, value: Value, text: str) -> str:
        """``text`` evaluated once per entry, in ``pre``: every use of ``value`` reads one name."""
        return self._bound_once(id(value), text)

    def read_before_replay(self, key: Value | Hashable, text: str) -> str:
        """``text`` reads live state (a source): bound in ``pre``, before the replayed side effects,
        when the entry replays any (``o.n += 1`` twice replays ``o.n = n + 1`` then ``n + 2``, both
        from the value ``o.n`` had before the call). ``key`` names what is read: a value (then the
        name is the one ``shared`` gives it) or a hashable key (``("symbol", "s0")``)."""
        if not self.read_sources_first or _SIMPLE.fullmatch(text):
            return text
        return self._bound_once(id(key) if isinstance(key, Value) else key, text)

    @contextlib.contextmanager
    def reading_live(self) -> Iterator[None]:
        """Code that runs first of all (``checks``: the calls ``record_leading_call`` made first)
        reads its sources where it stands: no effect has been replayed yet, and a name bound in
        ``pre`` (``read_before_replay``) is not bound there yet."""
        saved = self.read_sources_first
        self.read_sources_first = False
        try:
            yield
        finally:
            self.read_sources_first = saved

    def _bound_once(self, key: Hashable, text: str) -> str:
        if key not in self._shared:
            name = f"__t{next(self._n)}"
            self.pre.append(f"{name} = {text}")
            self._shared[key] = name
        return self._shared[key]

    def reconstruct(self, value: Value) -> str:
        if value is NULL:
            raise CaptureBug("NULL rebuilt as a value")
        try:
            text = value.reconstruct(self)
            if value.source is not None and text == self.source_expr(value.source):
                text = self.read_before_replay(value, text)
            return text
        except Unsupported as exc:
            made = value.created_step
            if made is not None:  # the outermost value that fails and knows where it was made
                exc.retry_step = made
            raise

    # --- callables at a break -----------------------------------------------------
    def native_callable(self, fn: Value, args: list[Value], site=None) -> tuple[str, list[Value]]:
        """Expression of the callable for a native call (user code goes through its own shim).
        ``site`` (engine/user_sites.py): the user's instruction a pending method call is made
        from, so what the method warns is attributed to the user's line."""
        callee, call_args = self._native_callable(fn, args, site)
        return self.step_call(fn, callee), call_args

    def step_call(self, fn: Value, callee: str) -> str:
        """``callee`` (a method call ``callee(obj, *args)``), or for ``opt.step()`` of an optimizer
        whose update the backend compiles, the router that runs the compiled update or that same
        call (backends/optimizer_update.py)."""
        from autograph.capture.core.method_refs import MethodRef
        if not isinstance(fn, MethodRef) or fn.name != "step" or self.backend is None or callee not in self.ns:
            return callee
        try:
            real = fn.obj.real_value()
        except Unsupported:
            return callee
        from autograph.backends import optimizer_update
        if not optimizer_update.compiles_step(real, self.backend):
            return callee
        return self.const(optimizer_update.OptimizerStep(self.ns[callee], self.backend))

    def _native_callable(self, fn: Value, args: list[Value], site=None) -> tuple[str, list[Value]]:
        from autograph.capture.core.method_refs import MethodRef
        from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
        from autograph.capture.families.modules import ModuleValue, _has_hooks, called_in_python, guard_no_hooks
        if isinstance(fn, UserFunctionValue) and fn.fn.__code__.co_flags & _CO_GENERATOR_LIKE:
            return self.reconstruct(fn), args  # calling it runs no code: nothing to compile
        if isinstance(fn, UserFunctionValue):  # the shim of this very function (real_value guards it)
            return self.const(self.wrap_nested(fn.real_value())), args
        if isinstance(fn, BoundMethodValue) and isinstance(fn.func, UserFunctionValue):
            if fn.func.fn.__code__.co_flags & _CO_GENERATOR_LIKE:  # `self.parameters()`: no code runs
                return self.reconstruct(fn), args
            return self.const(self.wrap_nested(fn.func.real_value())), [fn.self_value, *args]
        if isinstance(fn, ModuleValue) and called_in_python(fn.module):
            return self.reconstruct(fn), args
        if isinstance(fn, ModuleValue) and not _has_hooks(fn.module) and "forward" not in fn.module.__dict__:
            forward = type(fn.module).forward
            if isinstance(forward, types.FunctionType):
                guard_no_hooks(self.tx, fn)  # calling forward directly skips __call__'s hooks
                self.tx.guards.method(fn.source, type(fn.module), "forward", forward)
                return self.const(self.wrap_nested(forward)), [fn, *args]
        if isinstance(fn, ModuleValue):  # hooks in Python around the compiled forward
            from autograph.capture.families.module_hooks import class_forward, hooked_call
            forward = type(fn.module).forward
            if isinstance(forward, types.FunctionType) and "forward" not in fn.module.__dict__:
                raw = class_forward(type(fn.module))
                return self.const(hooked_call(self.wrap_nested(forward), raw)), [fn, *args]
        if isinstance(fn, MethodRef):
            real = None
            try:
                real = fn.obj.real_value()
            except Unsupported:
                pass
            if real is not None and not isinstance(real, type):
                for klass in type(real).__mro__:
                    if fn.name in klass.__dict__:
                        attr = klass.__dict__[fn.name]
                        if isinstance(attr, types.FunctionType) and not (
                                getattr(real, "__dict__", None) and fn.name in real.__dict__) \
                                and not attr.__code__.co_flags & _CO_GENERATOR_LIKE:
                            # called through the class: an instance attribute set later (an LR
                            # scheduler's `opt.step` wrapper) or a patched class recaptures
                            self.tx.guards.method(getattr(fn.obj, "source", None), type(real), fn.name, attr)
                            return self.const(self.wrap_nested(attr)), [fn.obj, *args]
                        break
        if isinstance(fn, MethodRef) or getattr(fn, "loaded_for_call", False):
            if site is not None:  # LOAD_METHOD's call, as CPython makes it, from the user's line
                return self.const(site.method(fn.name)), [fn.obj, *args]
            from autograph.capture.engine.python_methods import method_call  # LOAD_METHOD's call, as CPython makes it
            return self.const(method_call(fn.name)), [fn.obj, *args]
        return self.reconstruct(fn), args

    # --- resume functions -----------------------------------------------------------
    def resume_call(self, frame, target: Instruction, stack: list[Value], *, wrap: bool,
                    raise_exc: str | None = None) -> str:
        """A call of the resume function continuing at ``target`` with ``stack``. ``raise_exc``: an
        expression of an exception the resume raises right there (its handlers take over)."""
        # a CALL's own offset: make_resume_code re-runs the KW_NAMES/PRECALL folded into it
        code, offset = frame.code, target.offset
        if frame.by_offset.get(target.offset) is not target:
            raise Unsupported("a graph break inside a split instruction (slice)", kind="no-resume")
        code, offset = origin_of(code, offset)
        values = _frame_values(frame)
        live = _live_locals(code, offset, values)
        slots, args = [], []
        for v in stack:
            if v is NULL:
                slots.append("null")
                continue
            fresh = v.reentered_context(self)  # an open `with` block the resume re-enters
            slots.append("enter" if fresh is not None else "value")
            args.append(fresh if fresh is not None else self._stable(v))
        local_args = {name: self._stable(values[name]) for name in live}
        # cells shared with functions rebuilt above (or received so) go over as the cells themselves,
        # live or not: a later store must reach the functions holding them
        refs = [name for name in code.co_cellvars if _shared_cell(self, frame.cells.get(name))]
        live = [n for n in list(code.co_varnames) + list(code.co_cellvars)
                if n in local_args or n in refs]
        live = list(dict.fromkeys(live))
        for name in live:
            if name in refs:
                local_args[name] = self.reconstruct(frame.cells[name])
            elif name in code.co_cellvars and frame.cells.get(name) is not None:
                self.cells_by_value.add(id(frame.cells[name]))
        refs = tuple(n for n in live if n in refs)
        first = super_first_local(code, live)  # zero-argument super() reads the first parameter
        args = ([local_args[first]] if first is not None else []) + args
        args += [local_args[name] for name in live if name != first]
        if raise_exc is not None:
            args.append(raise_exc)
        fn = self._resume_function(code, offset, tuple(slots), tuple(live), wrap, raise_exc is not None, refs)
        name = self.bind(fn, self.resumes[-1].name)
        call = f"{name}({', '.join(args)})"
        # `return call` is a tail call in the entry the shim runs (build_entry)
        self.tail_calls[call] = f"{_TAIL_CALL}({', '.join([name, *args])})"
        return call

    def _stable(self, value: Value) -> str:
        """The value's expression, read *before* the breaking instruction runs natively: a value
        rebuilt from its source (``items[0]``) must not see a mutation made by that instruction."""
        text = self.reconstruct(value)
        if isinstance(value, _Expr) or _SIMPLE.fullmatch(text):
            return text
        name = f"__v{next(self._n)}"
        self.pre.append(f"{name} = {text}")
        return name

    def _resume_function(self, code, offset, slots, live, wrap, raise_exc=False, refs=()) -> Callable:
        key = (code, offset, slots, live, wrap, self.wrap_nested if wrap else None, raise_exc, refs)
        resumes = self.fn.__globals__.setdefault(RESUMES_ATTR, {})
        hit = resumes.get(key)
        if hit is None:
            name = f"__resume_at_{offset}_{next(_resume_counter)}"
            resume_code = _make_resume_code(code, offset, list(slots), list(live), name, raise_exc=raise_exc,
                                            handler_steps=self.tx.root.handler_steps, refs=refs)
            # its frames are the user's function's (tracebacks, inspect.stack(), sys._getframe)
            resume_code = resume_code.replace(co_name=code.co_name, co_qualname=_qualname_of(code))
            if not raise_exc:  # (an unwinding resume runs in Python only: never captured, never mapped)
                _ORIGIN[resume_code] = (code, _offset_map(resume_code, code, preamble_length(slots)))
            closure = self.fn.__closure__ if resume_code.co_freevars else None
            if resume_code.co_freevars and code is not self.fn.__code__ and \
                    _origin_code(self.fn.__code__) is not code:
                raise Unsupported("resume of a closure from another code object", kind="no-resume")
            raw = types.FunctionType(resume_code, self.fn.__globals__, name, None, closure)
            mark_entry(resume_code)  # run as it is (not captured), its frame too is the user's function's
            raw.__qualname__ = f"{code.co_qualname}.{name}" if hasattr(code, "co_qualname") else name
            fn = self.wrap_nested(raw) if wrap else raw
            lineno = next((i.lineno for i in normalize(code) if i.offset == offset), None)
            from autograph.capture.engine.result import ResumeRecord
            hit = (fn, ResumeRecord(name, fn, code, offset, lineno))
            resumes[key] = hit
        self.resumes.append(hit[1])
        return hit[0]


def _frame_values(frame) -> dict:
    """Locals and cell variables bound now. A cell variable is passed by value (the resume
    function's MAKE_CELL puts it in a fresh cell) unless a function rebuilt at the break shares
    it, or it came by reference: then the cell itself goes over (``resume_call``)."""
    from autograph.capture.families.functions import CellValue, RealCellValue
    values = dict(frame.locals)
    for name in frame.code.co_cellvars:
        cell = frame.cells.get(name)
        if isinstance(cell, CellValue) and cell.contents is not CellValue.EMPTY:
            values[name] = cell.contents
        elif isinstance(cell, RealCellValue) and cell.cell_source is not None:
            values[name] = cell
    return values


def _shared_cell(cg, cell) -> bool:
    """A cell that must stay one object across the break: rebuilt for a function made during
    capture, or received by reference."""
    from autograph.capture.families.functions import CellValue, RealCellValue
    if isinstance(cell, RealCellValue):
        return cell.cell_source is not None
    return isinstance(cell, CellValue) and id(cell) in cg._shared


def _origin_code(code):
    return _ORIGIN[code][0] if code in _ORIGIN else code


def origin_of(code: types.CodeType, offset: int) -> tuple[types.CodeType, int]:
    """Map an offset in a resume function's code back to the original code."""
    if code in _ORIGIN:
        orig, table = _ORIGIN[code]
        if offset in table:
            return orig, table[offset]
    return code, offset


def _offset_map(resume_code, orig_code, preamble: int) -> dict[int, int]:
    skip = ("CACHE", "EXTENDED_ARG")
    prefix = ("COPY_FREE_VARS", "MAKE_CELL", "RESUME")
    r = [i for i in dis.get_instructions(resume_code) if i.opname not in skip]
    o = [i for i in dis.get_instructions(orig_code) if i.opname not in skip]
    k = 0
    while k < len(r) and r[k].opname in prefix:
        k += 1
    r = r[k + preamble:]
    k = 0
    while k < len(o) and o[k].opname in prefix:
        k += 1
    o = o[k:]
    if len(r) != len(o):
        return {}
    return {a.offset: b.offset for a, b in zip(r, o)}


def _make_resume_code(code, offset, slots, live, name, raise_exc=False, handler_steps=(), refs=()):
    try:
        return make_resume_code(code, offset, slots, live, name, raise_exc=raise_exc, cell_refs=refs)
    except ValueError as exc:  # e.g. inside an except handler: no resume can restore that state
        err = Unsupported(f"cannot continue after this graph break: {exc}", kind=NO_RESUME)
        if handler_steps:  # break where the handled exception was raised: the handler runs in Python
            err.retry_step = handler_steps[-1]
        raise err from exc


def _live_locals(code, offset, defined: dict) -> list[str]:
    live = set(live_locals_at(code, offset))
    if "__class__" in code.co_freevars and code.co_argcount:
        live.add(code.co_varnames[0])  # read by a zero-argument super(), with no LOAD_FAST
    ordered = list(code.co_varnames) + [n for n in code.co_cellvars if n not in code.co_varnames]
    names = [n for n in ordered if n in live and n in defined]
    return names


_UNBOUND = object()
_TAIL_CALL = "__tail_call"  # ``TailCall`` in the entry the shim runs
# ``operator.call`` in the plain entry: the same code as the shim's, this one name apart
_PLAIN_CALL = "__autograph_call"


def _qualname_of(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)


def build_entry(cg: Codegen, name: str, body: list[str], has_graph: bool, graph_name: str | None,
                input_exprs: list[str], user_line: int | None = None) -> types.FunctionType:
    """Compile the entry function: same signature as the original, and the original's name, file
    and lines (every statement at ``user_line``, the breaking instruction's; the ``def`` line
    otherwise), so its frame reads as the user's function's. When it calls a resume function, its
    ``__autograph_tail__`` is the same code making those calls tail calls (``runtime/frames.py``):
    what the shim runs. The source is compiled once (the tail-calling text); the plain entry is that
    code reading ``operator.call`` where the twin reads ``TailCall``."""
    params, _ = signature_source(cg.fn, cg.ns)
    if not name.isidentifier():  # a lambda's "<lambda>"
        name = "__autograph_entry"
    lines = [f"def {name}({params}):"]
    lines += ["    " + line for line in cg.checks]
    lines += ["    " + line for line in cg.prologue]
    if has_graph:
        lines.append(f"    __out = {graph_name}({', '.join(input_exprs)})")
    lines += ["    " + line for line in cg.pre]
    body = ["    " + line for line in body]
    source = "\n".join(lines + body) + "\n"
    original = _origin_code(cg.fn.__code__)
    cg.ns[_TAIL_CALL] = TailCall
    shadowed = cg.ns.get(name, _UNBOUND)  # a resume calling itself: keep its name bound to the resume
    tail_body, found = _tail_calling(body, cg.tail_calls)
    if found < len(cg.tail_calls) and _tail_calling(lines, cg.tail_calls)[1]:  # (codegen returns in the body)
        tail_source = "\n".join(_tail_calling(lines + body, cg.tail_calls)[0]) + "\n"
    else:
        tail_source = None if not found else "\n".join(lines + tail_body) + "\n"
    if tail_source is None:  # calls no resume function: the entry is its own twin
        entry = _compiled_entry(source, cg.ns, name, original, user_line)
        mark_entry(entry.__code__)
    elif _TAIL_CALL not in source and _PLAIN_CALL not in source:
        tail = _compiled_entry(tail_source, cg.ns, name, original, user_line)
        cg.ns[_PLAIN_CALL] = operator.call
        entry = _renamed(tail, _TAIL_CALL, _PLAIN_CALL)
        mark_entry(entry.__code__)
        mark_entry(tail.__code__)
        entry.__autograph_tail__ = tail
    else:  # the generated text names either already (a user's attribute): compile both texts
        entry = _compiled_entry(source, cg.ns, name, original, user_line)
        tail = _compiled_entry(tail_source, cg.ns, name, original, user_line)
        mark_entry(entry.__code__)
        mark_entry(tail.__code__)
        entry.__autograph_tail__ = tail
    if shadowed is not _UNBOUND:
        cg.ns[name] = shadowed
    entry.__autograph_source__ = source
    return entry


def _tail_calling(lines: list[str], tail_calls: dict[str, str]) -> tuple[list[str], int]:
    """``lines`` with each ``return R(args)`` of a resume function's call written as
    ``return __tail_call(R, args)`` (the call texts are ``resume_call``'s, so a line equal to
    ``return`` and one of them returns exactly that call), and how many of the calls it met."""
    if not tail_calls:
        return lines, 0
    out, found = [], set()
    for line in lines:
        text = line.lstrip()
        statement, mark, at = text.partition(_USER_LINE_MARK)
        if statement.startswith("return ") and statement[7:] in tail_calls:
            line = f"{line[:len(line) - len(text)]}return {tail_calls[statement[7:]]}{mark}{at}"
            found.add(statement[7:])
        out.append(line)
    return out, len(found)


def _renamed(fn: types.FunctionType, old: str, new: str) -> types.FunctionType:
    """A function like ``fn`` whose code reads the global ``new`` where ``fn`` reads ``old``."""
    code = fn.__code__
    code = code.replace(co_names=tuple(new if n == old else n for n in code.co_names))
    out = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__qualname__ = fn.__qualname__
    out.__doc__ = fn.__doc__
    return out


_USER_LINE_MARK = "  # at user line "


def at_user_line(statement: str, lineno: int | None) -> str:
    """``statement`` (one line of the entry's body) placed at the user's line ``lineno`` rather than
    the entry's common line: a call made after the graph for a statement of its own (a deferred
    call) reads, in a warning or a traceback, as made from that statement."""
    return statement if lineno is None else f"{statement}{_USER_LINE_MARK}{lineno}"


def _compiled_entry(source: str, ns: dict, name: str, original: types.CodeType,
                    user_line: int | None) -> types.FunctionType:
    exec(compile(source, original.co_filename, "exec"), ns)
    entry = ns[name]
    code = _at_user_lines(entry.__code__, source, original, user_line)
    entry.__code__ = code.replace(co_name=original.co_name, co_qualname=_qualname_of(original))
    return entry


def _at_user_lines(code: types.CodeType, source: str, original: types.CodeType,
                   user_line: int | None) -> types.CodeType:
    """The entry's ``code`` (compiled from ``source``, nested code objects included) placed at the
    original's lines: every statement at ``user_line`` (the original's ``def`` line when None), a
    statement marked by :func:`at_user_line` at its own, each spanning its whole user line (no
    carets under generated columns); the function's first line is the original's. Positions
    without a line stay so; a code object's own first position (``RESUME``: zero columns on its
    first line) stays at its first line with zero columns."""
    line = user_line or original.co_firstlineno
    own_lines = {i: int(text.rsplit(_USER_LINE_MARK, 1)[1])
                 for i, text in enumerate(source.splitlines(), 1) if _USER_LINE_MARK in text} \
        if _USER_LINE_MARK in source else {}
    widths: dict[int, int] = {}

    def whole(at: int) -> Position:
        if at not in widths:
            widths[at] = len(linecache.getline(original.co_filename, at).rstrip())
        return at, at, 0, widths[at]

    def placed(code: types.CodeType, first_line: int) -> types.CodeType:
        generated_first = code.co_firstlineno

        def place(position: Position) -> Position:
            start, _end, column, end_column = position
            if start is None:
                return None, None, None, None
            if start == generated_first and column == 0 and end_column == 0:
                return first_line, first_line, 0, 0
            at = own_lines.get(start, line)
            return (at, at, None, None) if column is None else whole(at)

        consts = code.co_consts
        if any(isinstance(c, types.CodeType) for c in consts):
            consts = tuple(placed(c, own_lines.get(c.co_firstlineno, line)) if isinstance(c, types.CodeType)
                           else c for c in consts)
            code = code.replace(co_consts=consts)
        by_line = relocated_by_line(code, lambda start: whole(own_lines.get(start, line)), first_line)
        return by_line if by_line is not None else relocated(code, place, first_line)

    return placed(code, original.co_firstlineno)
