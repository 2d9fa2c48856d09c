"""Symbolic interpretation of normalised bytecode.

One handler table keyed by opname, each handler registered for a version range
(``@handler("LOAD_METHOD")``, ``@handler("LOAD_SUPER_ATTR", min_version=(3, 12))``);
families share behaviour through small factories (all BINARY_OP symbols, all
POP_JUMP_IF_*, all COMPARE_OP). A missing handler is a graph break. Values
dispatch through their own protocol (:mod:`autograph.capture.core.base`).

Instructions come from the torch-free bytecode layer
(:func:`autograph.bytecode.instructions.normalize`, one normaliser for the whole
project): its normal forms are what the handlers below dispatch on.
"""
from __future__ import annotations

import dis
import inspect
import sys
import types
from dataclasses import dataclass
from typing import Any, Callable

import torch

from autograph.bytecode.instructions import Instruction, normalize
from autograph.capture.core.breaks import CaptureBug, Unsupported, source_line
from autograph.capture.core.catching import catching
from autograph.capture.engine.graph import GraphBuilder
from autograph.capture.core.guard_builder import GuardRecorder
from autograph.capture.core.state import CaptureState
from autograph.capture.families import builtins as vb
from autograph.capture.core import registry
from autograph.capture.families import deferred_calls, scalars
from autograph.capture.engine import deferred_breaks
from autograph.capture.core.base import NULL, Value
from autograph.capture.core.method_refs import MethodRef
from autograph.capture.families.builder import wrap_real
from autograph.capture.families import exception_state, install as families, side_effects
from autograph.capture.core.handlers import HANDLERS, MAX_INLINE_DEPTH, VERSION, Handler, handler  # noqa: F401 (re-exported)
from autograph.capture.families.exception_values import ExceptionValue, enter_handler as _enter_handler, exception_of as _exception_of
from autograph.capture.core.constants import ConstantValue
from autograph.guards.sources import AttrSource, GlobalSource, ItemSource, LocalSource, MemberSource, ObjectSource, Source
from autograph.capture.families.containers import DictValue, ListIteratorValue, ListValue, SliceValue, TupleValue
from autograph.capture.families.functions import CellValue, NestedFunctionValue, RealCellValue, UserFunctionValue

_CO_GENERATOR_LIKE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


# Debug mode: after each handler, compare the stack change with ``dis.stack_effect``.
CHECK_STACK_EFFECTS = False
# normalised forms whose effect differs from the raw opcode of the same name (or has none)
_NO_EFFECT_CHECK = {"CALL", "LOAD_METHOD", "JUMP", "FOR_ITER", "RETURN_VALUE", "END_FOR", "BUILD_SLICE",
                    "BINARY_SUBSCR", "STORE_SUBSCR", "LOAD_CONST", "JUMP_IF_TRUE_OR_POP",
                    "JUMP_IF_FALSE_OR_POP", "LOAD_ATTR", "LOAD_GLOBAL"}


class Frame:
    """State of one interpreted code object (the root or an inlined callee)."""

    def __init__(self, code: types.CodeType, fn_globals: dict, fn_value: Value | None,
                 parent: "Frame | None"):
        self.code = code
        self.fn_globals = fn_globals
        self.fn_value = fn_value
        self.parent = parent
        self.instructions = normalize(code)
        self.catching = catching(code, self.instructions)
        # an inlined callee runs inside the caller's try when the call site is covered
        self.inside_try = False
        self.outer_unwinds = False  # an exception of the call site runs user code in a caller
        self.by_offset = {}
        for ins in self.instructions:
            self.by_offset.setdefault(ins.offset, ins)
        self.locals: dict[str, Value] = {}
        self.cells: dict[str, Value] = {}
        self.stack: list[Value] = []
        self.ip = 0
        self.current: Instruction | None = None
        # root frame: the steps of the instructions whose exception entered a handler
        self.handler_steps: list[int] = []

    def may_swallow(self, index: int) -> bool:
        """Whether user code may catch an exception raised at instruction ``index``: an
        ``except`` around it, or a ``with`` block whose ``__exit__`` may return true."""
        if index in self.catching.always:
            return True
        return any(depth > len(self.stack) or self.stack[depth - 1].exit_may_swallow()
                   for depth in self.catching.under_with.get(index, ()))

    def unwinds(self, index: int) -> bool:
        """Whether an exception raised at instruction ``index`` runs user code on its way out of
        this frame: a ``finally`` body, or a ``with`` block's exit other than a torch state
        context's (those only restore state, which the graph restores too: graph_state.py)."""
        if index in self.catching.under_finally:
            return True
        depths = self.catching.under_with.get(index)
        if not depths:
            return False
        from autograph.capture.families.contexts import is_state_exit
        return any(depth > len(self.stack) or not is_state_exit(self.stack[depth - 1]) for depth in depths)

    def push(self, v: Value) -> None:
        self.stack.append(v)

    def pop(self) -> Value:
        return self.stack.pop()

    def popn(self, n: int) -> list[Value]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def jump(self, target: Instruction) -> None:
        self.ip = target.index

    def where(self) -> tuple[str, int, str]:
        lineno = self.current.lineno if self.current is not None else self.code.co_firstlineno
        return (self.code.co_filename, lineno, self.code.co_name)


@dataclass
class Return:
    value: Value


@dataclass
class Stopped:
    """Interpretation of the root frame stopped right before ``inst`` (a planned break)."""
    frame: Frame
    inst: Instruction


class BreakAt(Exception):
    def __init__(self, inst: Instruction, cause: Unsupported, step: int = 0):
        super().__init__(cause.reason)
        self.inst = inst
        self.cause = cause
        self.step = step  # how many root instructions ran before it (where a replay stops)


class Translator:
    """One symbolic run of a function: a graph, guards, and the root frame."""

    def __init__(self, fn: types.FunctionType, args: tuple, kwargs: dict, stop_step: int | None = None,
                 defer_steps: dict[int, Unsupported] | None = None):
        self.root_fn = fn
        self.args = args
        self.kwargs = kwargs
        # stop right before the root frame's instruction number ``stop_step`` (a planned break)
        self.stop_step = stop_step
        # root steps whose call (a break, for the cause given) is made after the graph instead
        # (engine/deferred_breaks.py)
        self.defer_steps = defer_steps or {}
        # root instructions run so far; the one running now (values remember it as where they were made)
        self.root_steps = 0
        self.step = 0
        self.state = CaptureState()  # what the capture accumulates (capture/core/state.py)
        self.graph = GraphBuilder(self.state.shape_records)
        from autograph.capture.engine import prechecks
        # the entry can fall back to the original function when a pre-check fails
        self.graph.can_precheck = prechecks.supported(fn)
        self.guards = GuardRecorder()
        self.depth = 0
        # the exception being handled (families/exception_state.py); at entry, the caller's
        self.handled_exc: Value = exception_state.CALLER_HANDLED
        self.caller_handles_exception = sys.exc_info()[1] is not None  # made in the call it compiles for
        self.root: Frame | None = None
        self.frames: list[Frame] = []
        # torch state contexts entered and not yet left (families/contexts.py), innermost last
        self.open_contexts: list = []
        # generators made by calls during capture (families/user_objects.py), in order
        self.generators_made: list = []
        self.initial_state: tuple = ()
        self.final_grad: bool | None = None
        # set once a call was deferred to after the graph (families/deferred_calls.py)
        self.tail_after: str | None = None

    # --- entry -----------------------------------------------------------------
    def run(self) -> Return | Stopped:
        fn = self.root_fn
        frame = Frame(fn.__code__, fn.__globals__, UserFunctionValue(fn), None)
        self.root = frame
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(*self.args, **self.kwargs)
        except TypeError as exc:
            raise Unsupported(f"TypeError binding arguments: {exc}", generic=True, kind="python-exception")
        bound.apply_defaults()
        self._guard_defaults(fn)
        var_kw = {n for n, p in inspect.signature(fn, follow_wrapped=False).parameters.items() if p.kind is p.VAR_KEYWORD}
        for name, real in bound.arguments.items():
            local = _code_local(fn.__code__, name)
            frame.locals[local] = self.wrap(real, LocalSource(name))
            if name in var_kw and isinstance(frame.locals[local], DictValue):
                frame.locals[local].source = None  # `**kwargs` is a fresh dict per call: mutating it is local
                frame.locals[local].identity = None
        self._cells_by_reference(frame, bound.arguments)
        self._setup_cells(frame, UserFunctionValue(fn).closure_cells(self))
        from autograph.capture.families import contexts
        self.initial_state = contexts.state_snapshot()
        grad_mode = torch.is_grad_enabled()  # `with torch.no_grad()` in captured code switches it
        try:
            outcome = self.run_frame(frame)
            if isinstance(outcome, Stopped):  # the graph leaves the open `with` blocks (re-entered after it)
                contexts.leave_for_break(self, outcome.frame.stack)
            # grad mode the transformed code sets after the graph (None: unchanged)
            self.final_grad = torch.is_grad_enabled() if contexts.check_balanced(self, self.initial_state) \
                else None
            return outcome
        finally:
            self.restore_state()
            torch._C._set_grad_enabled(grad_mode)

    def restore_state(self) -> None:
        """Leave, for real, the state contexts capture entered (innermost first)."""
        while self.open_contexts:
            self.open_contexts.pop().release()

    def _cells_by_reference(self, frame: Frame, arguments: dict) -> None:
        """A resume function that received cells themselves (shared with functions rebuilt at the
        previous break): each is a real cell, read through its parameter."""
        from autograph.bytecode.resume import cells_passed_by_reference
        for name in cells_passed_by_reference(frame.code):
            real = arguments.get(name)
            if not isinstance(real, types.CellType):
                raise Unsupported(f"cell variable {name!r} did not arrive as a cell", kind="cannot-rebuild")
            self.guards.type_(LocalSource(name), real)
            frame.locals.pop(name, None)
            frame.cells[name] = RealCellValue(real, AttrSource(LocalSource(name), "cell_contents"), name,
                                              cell_source=LocalSource(name))

    def _guard_defaults(self, fn: types.FunctionType) -> None:
        """The entry and its guards bind the call with the defaults ``fn`` has now: replacing
        ``fn.__defaults__``/``__kwdefaults__`` recaptures, and so does changing an item of
        ``__kwdefaults__`` in place (a dict: ``f.__kwdefaults__["k"] = 7``)."""
        for name in ("__defaults__", "__kwdefaults__"):
            if getattr(fn, name) is not None:
                self.guards.id_(AttrSource(ObjectSource(fn, fn.__qualname__), name), getattr(fn, name))
        if fn.__kwdefaults__:
            src = AttrSource(ObjectSource(fn, fn.__qualname__), "__kwdefaults__")
            self.guards.keys(src, fn.__kwdefaults__)
            for key, value in fn.__kwdefaults__.items():
                self.guards.id_(ItemSource(src, key), value)

    def _setup_cells(self, frame: Frame, closure: list[Value]) -> None:
        code = frame.code
        for name in code.co_cellvars:
            if name in frame.cells:  # came by reference
                continue
            cell = CellValue()
            if name in frame.locals:
                cell.contents = frame.locals.pop(name)
            frame.cells[name] = cell
        for name, cell in zip(code.co_freevars, closure):
            frame.cells[name] = cell

    def run_frame(self, frame: Frame) -> Return | Stopped:
        self.frames.append(frame)
        try:
            return self._run_frame(frame)
        finally:
            self.frames.pop()

    def _run_frame(self, frame: Frame) -> Return | Stopped:
        insts = frame.instructions
        is_root = frame.parent is None
        while True:
            if frame.ip >= len(insts):
                raise CaptureBug(f"ran off the end of {frame.code.co_name}")
            inst = insts[frame.ip]
            frame.current = inst
            if is_root:
                if self.root_steps == self.stop_step:
                    return Stopped(frame, inst)
                self.step = self.root_steps
                self.root_steps += 1
            frame.ip += 1
            self.graph.current_trace = _trace(frame, inst)
            self.graph.inside_try = frame.inside_try or frame.may_swallow(inst.index)
            self.graph.unwinds = frame.outer_unwinds or frame.unwinds(inst.index)
            if is_root and self.step in self.defer_steps:
                deferred_breaks.defer(self, frame, inst, self.defer_steps[self.step])
                continue
            fn = HANDLERS.get(inst.opname)
            depth = len(frame.stack)
            try:
                tail_nodes = None
                if self.tail_after is not None and deferred_calls.check_tail(self, frame, inst):
                    tail_nodes = deferred_calls.node_count(self)
                if fn is None:
                    raise Unsupported(f"unsupported bytecode {inst.opname}", generic=True, kind="unsupported-bytecode")
                result = fn(self, frame, inst)
                if tail_nodes is not None:
                    deferred_calls.check_tail_nodes(self, tail_nodes)
                if CHECK_STACK_EFFECTS and result is None:
                    _check_stack_effect(inst, len(frame.stack) - depth)
            except Unsupported as exc:
                if exc.exc is not None and inst.exn is not None:
                    # the exception is known exactly (raised here or by an inlined callee, whose
                    # effects so far are eager's too): run the user's handler symbolically
                    try:
                        value = self._raised_value(exc)
                    except Unsupported as why:  # its chain cannot be modelled: Python raises it
                        exc = why
                    else:
                        exc.user_stack.clear()
                        _enter_handler(frame, inst, exc.exc, value, self.step)
                        if is_root:  # where to break instead if the handler cannot be resumed in
                            frame.handler_steps.append(self.step)
                        continue
                exc.user_stack.insert(0, frame.where())
                if is_root:
                    raise BreakAt(inst, exc, self.step) from None
                raise
            if result is not None:
                return result

    def _raised_value(self, err: Unsupported) -> Value:
        """The value of the exception ``err`` carries, chained to the handled one the first time it
        is seen (where Python raised it: ``_PyErr_SetObject``); a re-raise is not chained again."""
        value = err.exc_value
        if value is None:
            value = ExceptionValue(err.exc)
            value.created_step = self.step
            err.exc_value = value
        exception_state.check_raisable(value)
        if not err.chained:
            exception_state.chain(self, value)
            err.chained = True
        if getattr(value, "raised", True) is False:  # made in the call, raised now: it has a traceback
            value.raised = True
            value.created_step = self.step  # live after the call: break here (Python raises it)
        return value

    # --- helpers used by values ----------------------------------------------
    def wrap(self, obj: Any, source, *, pin: "Callable[[], Any] | Source | None" = None, what: str = "",
             trusted: bool = False, path: str = "") -> Value:
        """Value for a real object; guarded through ``source`` or pinned by ``pin``.

        A pin that is a ``Source`` (rooted at a fixed object) stands in for the missing
        source: the value and everything read through it are guarded at their live
        location.  A callable pin guards only this object, with a PYTHON guard.
        """
        if source is None and isinstance(pin, Source) and not trusted:
            source = pin
        elif source is None and pin is not None and not trusted:
            self.guards.pin = (pin, what or "value")
        try:
            return wrap_real(self, obj, source, path=path)
        finally:
            self.guards.pin = None

    def guard_id(self, source, obj, *, pin=None, what="") -> None:
        if source is None and isinstance(pin, Source):
            source = pin
        elif source is None and pin is not None:
            self.guards.pin = (pin, what)
        self.guards.id_(source, obj)
        self.guards.pin = None

    def guard_len(self, source, n: int, *, pin=None, what="") -> None:
        if source is not None:
            self.guards.length(source, range(n))

    def call(self, fn: Value, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return fn.call(self, args, kwargs)

    def compare(self, a: Value, op: str, b: Value) -> Value:
        return vb.compare(self, a, op, b)

    def binary(self, op: str, a: Value, b: Value) -> Value:
        return vb.binary_op(self, op, a, b)

    def unary(self, op: str, a: Value) -> Value:
        if op == "not":
            return ConstantValue(not a.truth(self))
        if a.is_tensor():
            return self.graph.call("call_function", vb.UNARY[op], (a,), {})
        if a.is_symbolic_scalar():
            out = scalars.unary(self, op, a)
            if out is not NotImplemented:
                return out
        if a.is_constant():
            return vb.fold(self, vb.UNARY[op], [a], {}, f"unary {op}")
        own = getattr(a, "unary_op", None)  # values with operators of their own (ndarrays)
        if own is not None:
            return own(self, op)
        raise Unsupported(f"unary {op} on {a.describe()}", kind="unsupported-operation")

    def getitem(self, obj: Value, key: Value) -> Value:
        return obj.getitem(self, key)

    def release_inputs(self) -> None:
        """Drop the call's real arguments and the root frame's contents once the capture is over:
        a translator lives in reference cycles (until the garbage collector runs), and an object
        whose death Python makes observable -- a generator closed as its last reference goes --
        must die when the compiled call lets go of it, as in eager."""
        self.args, self.kwargs = (), {}
        if getattr(self, "root", None) is not None:
            self.root.locals.clear()
            self.root.stack.clear()

    def inline_function(self, fv: Value, args: list[Value], kwargs: dict[str, Value], *,
                        frame_only: bool = False) -> Value:
        code: types.CodeType = fv.code
        if code.co_flags & _CO_GENERATOR_LIKE and not frame_only:
            make_generator = registry.generator_factory()
            if code.co_flags & inspect.CO_GENERATOR and make_generator is not None:
                return make_generator(self, fv, args, kwargs)  # lazily run frame (families/generators.py)
            raise Unsupported(f"call to generator/coroutine function {code.co_qualname}", kind="unsupported-bytecode")
        if self.depth >= MAX_INLINE_DEPTH:
            raise Unsupported(f"inlining deeper than {MAX_INLINE_DEPTH} calls ({code.co_qualname})", kind="call-depth")
        sig_fn = fv.signature_fn()
        try:
            sig = inspect.signature(sig_fn, follow_wrapped=False)
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            from autograph.capture.engine.binding_errors import binding_error
            err = binding_error(sig_fn, code, len(args), list(kwargs))  # Python's own message, catchable
            raise Unsupported(f"TypeError calling {code.co_qualname}: {exc}", generic=True, exc=err,
                              kind="python-exception")
        frame = Frame(code, fv.fn_globals, fv, self.root)
        frame.parent = self.root  # any non-None parent marks an inlined frame
        frame.inside_try = self.graph.inside_try  # set for the caller's call instruction
        frame.outer_unwinds = self.graph.unwinds
        for name, param in sig.parameters.items():
            local = _code_local(code, name)
            if name in bound.arguments:
                value = bound.arguments[name]
                if param.kind is inspect.Parameter.VAR_POSITIONAL:
                    value = TupleValue(list(value))
                elif param.kind is inspect.Parameter.VAR_KEYWORD:
                    value = DictValue(dict(value))
            elif param.kind is inspect.Parameter.VAR_POSITIONAL:
                value = TupleValue([])
            elif param.kind is inspect.Parameter.VAR_KEYWORD:
                value = DictValue({})
            else:
                value = self._default(fv, name, param)
            frame.locals[local] = value
        self._setup_cells(frame, fv.closure_cells(self))
        if frame_only:
            return frame
        self.depth += 1
        try:
            result = self.run_frame(frame)
        finally:
            self.depth -= 1
        assert isinstance(result, Return)
        return result.value

    def _default(self, fv: Value, name: str, param: inspect.Parameter) -> Value:
        if isinstance(fv, NestedFunctionValue):
            return fv.default_value(self, name, None, None)
        fn = fv.fn
        code = fn.__code__
        positional = code.co_varnames[:code.co_argcount]
        if name in positional and fn.__defaults__ and name in positional[code.co_argcount - len(fn.__defaults__):]:
            idx = positional.index(name) - (code.co_argcount - len(fn.__defaults__))
            src = ItemSource(AttrSource(fv.source, "__defaults__"), idx) if fv.source is not None else None
            return self.wrap(param.default, src,
                             pin=ItemSource(AttrSource(ObjectSource(fn, fn.__qualname__), "__defaults__"), idx))
        src = ItemSource(AttrSource(fv.source, "__kwdefaults__"), name) if fv.source is not None else None
        return self.wrap(param.default, src,
                         pin=ItemSource(AttrSource(ObjectSource(fn, fn.__qualname__), "__kwdefaults__"), name))

    def load_global(self, frame: Frame, name: str) -> Value:
        g = frame.fn_globals
        stored = side_effects.pending_global(self, g, name)  # assigned earlier in this capture
        if stored is not None and stored is not side_effects.DELETED:
            return stored
        if name in g and stored is None:
            real = g[name]
            if g is self.root_fn.__globals__:
                return self.wrap(real, GlobalSource(name))
            fsrc = getattr(frame.fn_value, "source", None)
            if fsrc is not None:
                return self.wrap(real, ItemSource(AttrSource(fsrc, "__globals__"), name))
            return self.wrap(real, None, pin=_global_of(g, name))
        b = g.get("__builtins__", __builtins__)
        b = b.__dict__ if isinstance(b, types.ModuleType) else b
        if name in b:
            # the name resolved to a builtin because the module has no global of that name:
            # a global defined later (``len = my_len``) must recapture (unless this capture deleted it)
            if stored is None:
                self.guards.key_absent(_globals_dict_source(g), name)
            return self.wrap(b[name], None, trusted=True)
        raise Unsupported(f"NameError: name {name!r} is not defined", generic=True, kind="python-exception")


def _code_local(code: types.CodeType, param: str) -> str:
    """The local a parameter named as ``inspect.signature`` names it binds: a comprehension's
    ``implicit0`` is its code's ``.0``."""
    if param.startswith("implicit") and param not in code.co_varnames:
        return "." + param[len("implicit"):]
    return param


def _check_stack_effect(inst: Instruction, actual: int) -> None:
    """Debug check: a handler must move the stack as CPython's instruction does."""
    op = dis.opmap.get(inst.opname)
    if op is None or inst.opname in _NO_EFFECT_CHECK:
        return
    arg = inst.arg if op >= dis.HAVE_ARGUMENT else None
    try:
        allowed = {dis.stack_effect(op, arg, jump=True), dis.stack_effect(op, arg, jump=False)}
    except ValueError:
        return
    if actual not in allowed:
        raise CaptureBug(f"handler for {inst.opname} moved the stack by {actual}, CPython by {allowed}")


def _globals_dict_source(g: dict) -> Source:
    """The globals dict ``g`` itself, as a guard source (``vars(module)``)."""
    module_name = g.get("__name__")
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    if module is not None and getattr(module, "__dict__", None) is g:
        return AttrSource(ObjectSource(module, module_name), "__dict__")
    return ObjectSource(g, f"vars({module_name})")


def _global_of(g: dict, name: str) -> Any:
    """Source of global ``name`` of another module, shown as ``module.name``."""
    module_name = g.get("__name__")
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    if module is not None and getattr(module, "__dict__", None) is g:
        return MemberSource(ObjectSource(module, module_name), "__dict__", name)
    return ItemSource(ObjectSource(g, f"vars({module_name})"), name)


def _trace(frame: Frame, inst: Instruction) -> str:
    filename, lineno, name = frame.code.co_filename, inst.lineno, frame.code.co_name
    return f'  File "{filename}", line {lineno}, in {name}\n    {source_line(filename, lineno)}\n'


# ---------------------------------------------------------------------------
# handlers: no-ops and stack shuffling

@handler("RESUME", "COPY_FREE_VARS", "MAKE_CELL")  # NOP, EXTENDED_ARG, CACHE are normalised away
def _nop(tx, frame, inst):
    return None


@handler("POP_TOP")
def _pop_top(tx, frame, inst):
    frame.pop()


@handler("PUSH_NULL")
def _push_null(tx, frame, inst):
    frame.push(NULL)


@handler("COPY")
def _copy(tx, frame, inst):
    frame.push(frame.stack[-inst.arg])


@handler("SWAP")
def _swap(tx, frame, inst):
    s = frame.stack
    s[-1], s[-inst.arg] = s[-inst.arg], s[-1]


@handler("END_FOR", min_version=(3, 12))
def _end_for(tx, frame, inst):
    # only where something other than FOR_ITER jumps to it: the normal form drops a loop's END_FOR
    frame.pop()
    frame.pop()


# --- loads and stores --------------------------------------------------------

@handler("LOAD_CONST")
def _load_const(tx, frame, inst):
    frame.push(tx.wrap(inst.argval, None, trusted=True) if not isinstance(inst.argval, types.CodeType)
               else ConstantValue(inst.argval))


@handler("LOAD_FAST", "LOAD_FAST_CHECK")
def _load_fast(tx, frame, inst):
    try:
        frame.push(frame.locals[inst.argval])
    except KeyError:
        raise Unsupported(f"UnboundLocalError: {inst.argval!r}", generic=True, kind="python-exception")


@handler("LOAD_FAST_AND_CLEAR", min_version=(3, 12))
def _load_fast_and_clear(tx, frame, inst):
    frame.push(frame.locals.pop(inst.argval, NULL))


@handler("STORE_FAST")
def _store_fast(tx, frame, inst):
    value = frame.pop()
    if value is NULL:
        frame.locals.pop(inst.argval, None)
    else:
        frame.locals[inst.argval] = value


@handler("DELETE_FAST")
def _delete_fast(tx, frame, inst):
    if inst.argval not in frame.locals:
        raise Unsupported(f"UnboundLocalError: {inst.argval!r}", generic=True, kind="python-exception")
    del frame.locals[inst.argval]


@handler("LOAD_DEREF")
def _load_deref(tx, frame, inst):
    frame.push(frame.cells[inst.argval].load(tx, inst.argval))


@handler("STORE_DEREF")
def _store_deref(tx, frame, inst):
    frame.cells[inst.argval].store(tx, frame.pop())


@handler("LOAD_CLOSURE")
def _load_closure(tx, frame, inst):
    frame.push(frame.cells[inst.argval])


@handler("LOAD_GLOBAL")
def _load_global(tx, frame, inst):
    if inst.push_null:
        frame.push(NULL)
    frame.push(tx.load_global(frame, inst.argval))


@handler("LOAD_NAME")
def _load_name(tx, frame, inst):
    frame.push(tx.load_global(frame, inst.argval))


@handler("STORE_GLOBAL")
def _store_global(tx, frame, inst):
    """``global x; x = v``: a store into the globals dict of the function running it (another
    module's, for an inlined callee), recorded and replayed after the graph in order with the other
    side effects; later loads of ``x`` in this capture see ``v``. The graph builder splits the graph
    before an operation that can raise at run time while effects are pending, so a store that
    comes before a failing operation in program order has happened when it raises."""
    side_effects.record_global(tx, frame.fn_globals, inst.argval, frame.pop())


@handler("DELETE_GLOBAL")
def _delete_global(tx, frame, inst):
    """``global x; del x``: recorded like a store. A name absent at this point raises NameError in
    Python, which runs the instruction; a present one is guarded to be there (its value is)."""
    name = inst.argval
    stored = side_effects.pending_global(tx, frame.fn_globals, name)
    if stored is side_effects.DELETED or (stored is None and name not in frame.fn_globals):
        raise Unsupported(f"NameError: name {name!r} is not defined", generic=True, kind="python-exception")
    if stored is None:
        tx.load_global(frame, name)  # guards the global: present, and as it was
    side_effects.record_global(tx, frame.fn_globals, name, side_effects.DELETED)


@handler("LOAD_ATTR")
def _load_attr(tx, frame, inst):
    obj = frame.pop()
    frame.push(obj.getattr(tx, inst.argval))


@handler("LOAD_METHOD")
def _load_method(tx, frame, inst):
    obj = frame.pop()
    frame.push(NULL)
    if isinstance(obj, (UserFunctionValue, ConstantValue)):  # resolve now: a missing attribute fails here
        method = obj.getattr(tx, inst.argval)
        if isinstance(method, vb.BuiltinMethodValue):  # called at a break as LOAD_METHOD calls it
            method.loaded_for_call = True
        frame.push(method)
    else:
        frame.push(MethodRef(obj, inst.argval))


@handler("LOAD_SUPER_ATTR", min_version=(3, 12))
def _load_super_attr(tx, frame, inst):
    obj = frame.pop()
    cls = frame.pop()
    frame.pop()  # the global `super`
    value = registry.BUILTIN_HANDLERS[super](tx, cls, obj).getattr(tx, inst.argval)
    if "method" in inst.flags:
        frame.push(NULL)
    frame.push(value)


@handler("STORE_ATTR")
def _store_attr(tx, frame, inst):
    obj = frame.pop()
    value = frame.pop()
    obj.setattr(tx, inst.argval, value)


@handler("DELETE_ATTR")
def _delete_attr(tx, frame, inst):
    delete = getattr(frame.stack[-1], "delattr", None)  # values made during capture can forget attributes
    if delete is None:
        raise Unsupported(f"`del` of attribute {inst.argval!r} — a side effect", kind="side-effect")
    delete(tx, inst.argval)
    frame.pop()


@handler("BINARY_SUBSCR")
def _binary_subscr(tx, frame, inst):
    key = frame.pop()
    obj = frame.pop()
    frame.push(obj.getitem(tx, key))


@handler("STORE_SUBSCR")
def _store_subscr(tx, frame, inst):
    key = frame.pop()
    obj = frame.pop()
    value = frame.pop()
    obj.setitem(tx, key, value)


@handler("DELETE_SUBSCR")
def _delete_subscr(tx, frame, inst):
    key = frame.pop()
    obj = frame.pop()
    obj.delitem(tx, key)


# --- operators -----------------------------------------------------------------

@handler("BINARY_OP")
def _binary_op(tx, frame, inst):
    b = frame.pop()
    a = frame.pop()
    frame.push(tx.binary(inst.argval, a, b))  # argval: the symbol ("+", "+=", ...)


def _unary(symbol: str) -> Handler:
    def run(tx, frame, inst):
        frame.push(tx.unary(symbol, frame.pop()))
    return run


handler("UNARY_NEGATIVE")(_unary("-"))
handler("UNARY_INVERT")(_unary("~"))
handler("UNARY_NOT")(_unary("not"))


@handler("COMPARE_OP")
def _compare_op(tx, frame, inst):
    b = frame.pop()
    a = frame.pop()
    frame.push(tx.compare(a, inst.argval, b))


@handler("IS_OP")
def _is_op(tx, frame, inst):
    b = frame.pop()
    a = frame.pop()
    frame.push(tx.compare(a, "is not" if inst.arg else "is", b))


@handler("CONTAINS_OP")
def _contains_op(tx, frame, inst):
    b = frame.pop()
    a = frame.pop()
    frame.push(tx.compare(a, "not in" if inst.arg else "in", b))


@handler("CALL_INTRINSIC_1")  # also 3.11's LIST_TO_TUPLE / UNARY_POSITIVE (normal form)
def _call_intrinsic_1(tx, frame, inst):
    name = inst.argval
    if name == "INTRINSIC_LIST_TO_TUPLE":
        frame.push(TupleValue(frame.pop().iter_items(tx)))
    elif name == "INTRINSIC_UNARY_POSITIVE":
        frame.push(tx.unary("+", frame.pop()))
    else:
        raise Unsupported(f"unsupported bytecode CALL_INTRINSIC_1 {name}", generic=True, kind="unsupported-bytecode")


# --- building containers --------------------------------------------------------

@handler("BUILD_TUPLE")
def _build_tuple(tx, frame, inst):
    frame.push(TupleValue(frame.popn(inst.arg)))


@handler("BUILD_LIST")
def _build_list(tx, frame, inst):
    frame.push(ListValue(frame.popn(inst.arg)))


@handler("BUILD_MAP")
def _build_map(tx, frame, inst):
    flat = frame.popn(2 * inst.arg)
    d = DictValue({})
    for k, v in zip(flat[::2], flat[1::2]):
        d.items[d._key(k, tx)] = v
    frame.push(d)


@handler("BUILD_CONST_KEY_MAP")
def _build_const_key_map(tx, frame, inst):
    keys = frame.pop().as_python_constant()
    values = frame.popn(inst.arg)
    frame.push(DictValue(dict(zip(keys, values))))


@handler("BUILD_SLICE")
def _build_slice(tx, frame, inst):
    parts = frame.popn(inst.arg)
    if len(parts) == 2:
        parts.append(ConstantValue(None))
    frame.push(SliceValue(*parts))


@handler("BUILD_STRING")
def _build_string(tx, frame, inst):
    parts = frame.popn(inst.arg)
    frame.push(ConstantValue("".join(p.as_python_constant() for p in parts)))


@handler("FORMAT_VALUE")
def _format_value(tx, frame, inst):
    spec = frame.pop().as_python_constant() if (inst.arg & 0x04) == 0x04 else ""
    value = frame.pop()
    snapshot = vb.text_snapshot(tx, value)
    if snapshot is None and not value.is_constant() and not spec:
        text = vb.python_format_text(tx, value, repr if inst.arg & 0x03 == 2 else str)
        if text is not None:  # a class's own __str__/__repr__, inlined
            frame.push(text)
            return
    if snapshot is None and not value.is_constant():
        raise Unsupported(f"f-string formatting of {value.describe()}", kind="unsupported-operation")
    if vb._has_symbolic([value if snapshot is None else ConstantValue(snapshot)], {}):
        raise Unsupported("formatting a dynamic size as text (its value is known only at run time)",
                          kind="dynamic-shape")
    v = snapshot if snapshot is not None else value.as_python_constant()
    conv = inst.arg & 0x03
    v = {0: lambda x: x, 1: str, 2: repr, 3: ascii}[conv](v)
    frame.push(ConstantValue(format(v, spec)))


@handler("BUILD_SET")
def _build_set(tx, frame, inst):
    from autograph.capture.families.sets import SetValue
    frame.push(SetValue.of_values(tx, frame.popn(inst.arg), set))


@handler("SET_ADD")
def _set_add(tx, frame, inst):
    v = frame.pop()
    frame.stack[-inst.arg].call_method(tx, "add", [v], {})


@handler("SET_UPDATE")
def _set_update(tx, frame, inst):
    v = frame.pop()
    frame.stack[-inst.arg].call_method(tx, "update", [v], {})


# The container a display or comprehension builds is fresh, unless the code resumes after a
# graph break: it then arrives as a parameter of the resume function, a list or dict from
# outside whose changes must happen for real. Its own methods record them (a no-op when fresh).
@handler("LIST_APPEND")
def _list_append(tx, frame, inst):
    v = frame.pop()
    frame.stack[-inst.arg].call_method(tx, "append", [v], {})


@handler("LIST_EXTEND")
def _list_extend(tx, frame, inst):
    v = frame.pop()
    frame.stack[-inst.arg].call_method(tx, "extend", [v], {})


@handler("MAP_ADD")
def _map_add(tx, frame, inst):
    v = frame.pop()
    k = frame.pop()
    frame.stack[-inst.arg].setitem(tx, k, v)


@handler("DICT_UPDATE", "DICT_MERGE")
def _dict_update(tx, frame, inst):
    v = frame.pop()
    d = frame.stack[-inst.arg]
    from autograph.capture.families.containers import mapping_items
    pairs = mapping_items(tx, v)  # ** of any mapping: keys(), [k]
    if inst.opname == "DICT_MERGE" and {d._key(k, tx) for k, _ in pairs} & set(d.items):
        raise Unsupported("TypeError: got multiple values for keyword argument", generic=True, kind="python-exception")
    for k, value in pairs:
        d.setitem(tx, k, value)


@handler("UNPACK_SEQUENCE")
def _unpack_sequence(tx, frame, inst):
    items = frame.pop().iter_items(tx)
    if len(items) != inst.arg:
        raise Unsupported(f"ValueError: unpacking {len(items)} values into {inst.arg}", generic=True,
                          kind="python-exception")
    for item in reversed(items):
        frame.push(item)


@handler("UNPACK_EX")
def _unpack_ex(tx, frame, inst):
    items = frame.pop().iter_items(tx)
    before, after = inst.arg & 0xFF, inst.arg >> 8
    if len(items) < before + after:
        raise Unsupported("ValueError: not enough values to unpack", generic=True, kind="python-exception")
    rest = ListValue(items[before:len(items) - after])
    for item in reversed(items[len(items) - after:]):
        frame.push(item)
    frame.push(rest)
    for item in reversed(items[:before]):
        frame.push(item)


# --- iteration ---------------------------------------------------------------------

@handler("GET_ITER")
def _get_iter(tx, frame, inst):
    from autograph.capture.families.iterators import iterator_of
    frame.push(iterator_of(tx, frame.pop()))  # live over the call's lists/dicts, lazy for zip/map/...


@handler("FOR_ITER")
def _for_iter(tx, frame, inst):
    it = frame.stack[-1]
    from autograph.capture.families.iterators import advances
    if not advances(tx, it):
        raise Unsupported(f"iteration over {it.describe()}", kind="unsupported-operation")
    item = it.next(tx)
    if item is None:
        frame.pop()
        frame.jump(inst.target)
    else:
        frame.push(item)


@handler("GET_YIELD_FROM_ITER")
def _get_yield_from_iter(tx, frame, inst):
    """``yield from x``: a generator is delegated to as it is, anything else through ``iter(x)``."""
    obj = frame.pop()
    frame.push(obj if isinstance(obj, ListIteratorValue) else obj.get_iter(tx))


@handler("SEND")
def _send(tx, frame, inst):
    """The delegation step of ``yield from``: the iterator's next item goes on to ``YIELD_VALUE``;
    when it is exhausted, its return value (a generator's ``return``; None for other iterators)
    replaces it (3.11) or goes on top of it for ``END_SEND`` (3.12+), at the target."""
    sent = frame.pop()
    receiver = frame.stack[-1]
    sends_none = sent.is_constant() and sent.as_python_constant() is None
    result = None
    if sends_none and isinstance(receiver, ListIteratorValue):
        item = receiver.next(tx)
    elif sends_none and getattr(receiver, "is_user_iterator", None) is not None and receiver.is_user_iterator(tx):
        item, result = _user_iterator_step(tx, receiver)  # tp_iternext: the class's __next__
    elif hasattr(receiver, "send_value"):  # a generator of the capture: the value is sent on to it
        item = receiver.send_value(tx, sent)
    else:
        raise Unsupported(f"send() of {sent.describe()} into {receiver.describe()}", kind="unsupported-operation")
    if item is not None:
        frame.push(item)
        return
    if VERSION < (3, 12):
        frame.pop()
    frame.push(result or getattr(receiver, "return_value", None) or ConstantValue(None))
    frame.jump(inst.target)


def _user_iterator_step(tx, receiver: Value) -> tuple[Value | None, Value | None]:
    """``__next__`` of an iterator written in Python under ``yield from``: ``(item, None)``, or
    ``(None, result)`` at its end, ``result`` being the StopIteration's ``.value`` (the value of
    the ``yield from`` expression)."""
    try:
        return receiver.next_or_raise(tx), None
    except Unsupported as err:
        if not (err.generic and isinstance(err.exc, StopIteration)):
            raise
        if not err.exc.args:
            return None, ConstantValue(None)
        if err.exc_value is None:
            raise Unsupported(f"the value of a StopIteration from {receiver.describe()} under `yield from`",
                              kind="unsupported-operation") from None
        return None, err.exc_value.getattr(tx, "value")


@handler("END_SEND", min_version=(3, 12))
def _end_send(tx, frame, inst):
    value = frame.pop()
    frame.pop()
    frame.push(value)


# --- jumps ----------------------------------------------------------------------------

@handler("JUMP")
def _jump(tx, frame, inst):
    frame.jump(inst.target)


def _pop_jump(test: Callable[["Translator", Value], bool]) -> Handler:
    def run(tx, frame, inst):
        value = frame.stack[-1]
        taken = test(tx, value)  # may break: the stack still holds the condition
        frame.pop()
        if taken:
            frame.jump(inst.target)
    return run


def _is_none(tx, v: Value) -> bool:
    return tx.compare(v, "is", ConstantValue(None)).truth(tx)


handler("POP_JUMP_IF_TRUE")(_pop_jump(lambda tx, v: v.truth(tx)))
handler("POP_JUMP_IF_FALSE")(_pop_jump(lambda tx, v: not v.truth(tx)))
handler("POP_JUMP_IF_NONE")(_pop_jump(_is_none))
handler("POP_JUMP_IF_NOT_NONE")(_pop_jump(lambda tx, v: not _is_none(tx, v)))


def _jump_or_pop(when: bool) -> Handler:
    def run(tx, frame, inst):
        if frame.stack[-1].truth(tx) == when:
            frame.jump(inst.target)
        else:
            frame.pop()
    return run


handler("JUMP_IF_TRUE_OR_POP", max_version=(3, 11))(_jump_or_pop(True))
handler("JUMP_IF_FALSE_OR_POP", max_version=(3, 11))(_jump_or_pop(False))


# --- calls and functions -------------------------------------------------------------

def _resolve_callable(tx, slots: list[Value], args: list[Value]) -> tuple[Value, list[Value]]:
    first, second = slots
    if first is NULL:
        return second, args
    return first, [second, *args]


@handler("CALL")
def _call(tx, frame, inst):
    argc = inst.arg
    kw_names = inst.argval or ()
    items = frame.popn(argc)
    slots = frame.popn(2)
    fn, args = _resolve_callable(tx, slots, items)
    if kw_names:
        kwargs = dict(zip(kw_names, args[len(args) - len(kw_names):]))
        args = args[:len(args) - len(kw_names)]
    else:
        kwargs = {}
    frame.push(tx.call(fn, args, kwargs))


@handler("CALL_FUNCTION_EX")
def _call_function_ex(tx, frame, inst):
    kwargs_v = frame.pop() if inst.arg & 1 else DictValue({})
    args_v = frame.pop()
    fn = frame.pop()
    null = frame.pop()
    if null is not NULL:  # defensive: CPython puts NULL under the callable
        raise CaptureBug("CALL_FUNCTION_EX without NULL")
    if not isinstance(kwargs_v, DictValue):
        raise Unsupported(f"** of {kwargs_v.describe()}", kind="unsupported-operation")
    frame.push(tx.call(fn, args_v.iter_items(tx), dict(kwargs_v.items)))


@handler("MAKE_FUNCTION")
def _make_function(tx, frame, inst):
    code = frame.pop().as_python_constant()
    flags = inst.arg
    closure = frame.pop().items if flags & 0x08 else []
    annotations = frame.pop() if flags & 0x04 else None
    kwdefaults = frame.pop() if flags & 0x02 else None
    defaults = frame.pop() if flags & 0x01 else None
    fn = NestedFunctionValue(code, frame.fn_globals, defaults, kwdefaults, list(closure), annotations)
    fn.created_step = tx.step
    frame.push(fn)


@handler("RETURN_VALUE")
def _return_value(tx, frame, inst):
    return Return(frame.pop())


@handler("IMPORT_NAME")
def _import_name(tx, frame, inst):
    fromlist = frame.pop().as_python_constant()
    level = frame.pop().as_python_constant()
    name = inst.argval
    if level != 0 or name not in sys.modules:
        raise Unsupported(f"import of {name!r} at run time", generic=True, kind="import-in-function")
    module = sys.modules[name] if fromlist else sys.modules[name.partition(".")[0]]
    frame.push(tx.wrap(module, None, trusted=True))


@handler("IMPORT_FROM")
def _import_from(tx, frame, inst):
    frame.push(frame.stack[-1].getattr(tx, inst.argval))


@handler("LOAD_ASSERTION_ERROR")
def _load_assertion_error(tx, frame, inst):
    frame.push(tx.wrap(AssertionError, None, trusted=True))


@handler("PUSH_EXC_INFO")
def _push_exc_info(tx, frame, inst):
    exc = frame.pop()
    frame.push(tx.handled_exc)  # restored by POP_EXCEPT
    tx.handled_exc = exc
    frame.push(exc)


@handler("CHECK_EXC_MATCH")
def _check_exc_match(tx, frame, inst):
    cls = frame.pop()
    exc = _exception_of(frame.stack[-1])
    if exc is None:
        raise Unsupported("exception matching on an unknown exception", kind="unsupported-operation")
    frame.push(ConstantValue(isinstance(exc, vb._class_info(cls))))


@handler("POP_EXCEPT")
def _pop_except(tx, frame, inst):
    tx.handled_exc = frame.pop()


@handler("RERAISE")
def _reraise(tx, frame, inst):
    value = frame.stack[-1]
    err = Unsupported("exception re-raised", generic=True, exc=_exception_of(value), kind="python-exception")
    err.exc_value = value
    err.chained = True  # RERAISE restores the exception as it is: no new context
    raise err


@handler("RAISE_VARARGS")
def _raise(tx, frame, inst):
    exc, value = None, None
    if inst.arg == 0:  # bare `raise`: the handled exception again, as it is (not chained anew)
        value = exception_state.handled(tx)
        if value.is_constant() and value.as_python_constant() is None:
            # none handled: Python raises a new RuntimeError (chained to nothing: none is handled)
            from autograph.capture.families import fresh
            value = fresh.construct(tx, RuntimeError, [ConstantValue("No active exception to reraise")], {})
            err = Unsupported("RuntimeError: No active exception to reraise", generic=True,
                              exc=value.real_value(), kind="python-exception")
            err.exc_value = value
            raise err
        exc = _exception_of(value)
        if exc is None:  # not known exactly
            value = None
        err = Unsupported("`raise` — the exception is raised by Python", generic=True, exc=exc,
                          kind="python-exception")
        err.exc_value, err.chained = value, True
        raise err
    if inst.arg in (1, 2):  # `raise X(...)` of a known exception: callers' handlers can run symbolically
        value = frame.stack[-inst.arg]
        try:
            exc = value.real_value()
        except Unsupported:
            exc = None
        if isinstance(exc, type) and issubclass(exc, BaseException):
            # `raise Cls`: Python makes the instance, anew each time
            from autograph.capture.families import fresh
            value = fresh.construct(tx, exc, [], {}) if fresh.constructible(exc) else None
            exc = value.real_value() if value is not None else None
        if not isinstance(exc, BaseException):
            exc, value = None, None
        if inst.arg == 2 and exc is not None and not _set_cause(tx, value, frame.stack[-1]):
            exc, value = None, None
    err = Unsupported("`raise` — the exception is raised by Python", generic=True, exc=exc,
                      kind="python-exception")
    err.exc_value = value
    raise err


def _set_cause(tx, value: Value, cause: Value) -> bool:
    """``raise value from cause``: Python sets ``__cause__`` (an exception class made into an
    instance, None allowed) and ``__suppress_context__``. Modelled on an exception the call made
    (rebuilt with them); False when either side is not known exactly (Python raises it)."""
    from autograph.capture.families import fresh
    if not exception_state.models_chain(value):
        return False
    if not (cause.is_constant() and cause.as_python_constant() is None):
        try:
            real = cause.real_value()
        except Unsupported:
            return False
        if isinstance(real, type) and issubclass(real, BaseException):
            if not fresh.constructible(real):
                return False
            cause = fresh.construct(tx, real, [], {})
            real = cause.real_value()
        if not isinstance(real, BaseException) or not exception_state.models_chain(cause):
            return False
    exception_state.set_chain_attr(tx, value, "__cause__", cause)  # also sets __suppress_context__
    return True


# every value family registers its handlers (families/install.py): here, once the opcode table above exists
families.install_all()
