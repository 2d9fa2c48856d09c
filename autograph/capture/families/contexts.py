"""``with`` blocks in captured code, and torch's state context managers.

``BEFORE_WITH`` is interpreted through the object protocol (``__enter__`` now,
``__exit__`` bound for the normal exit path), so Python-level context managers
are inlined. ``torch.no_grad()``, ``enable_grad()``, ``set_grad_enabled(b)``,
``inference_mode(m)`` and ``autocast(...)`` switch thread-local state *inside the
graph* (``torch._C._set_grad_enabled``, ``_enter_inference_mode``/``_exit_inference_mode``,
``torch.amp._enter_autocast``/``_exit_autocast`` nodes, as TorchDynamo does) and for
real while capture is inside the block, so fake propagation sees the same state.

A graph break inside such a block resumes inside it: the capture leaves the
block at the end of the graph, the transformed code runs the breaking
instruction under a fresh equivalent context (``reentered_context``), and the
resume function re-enters another fresh one in its preamble (an ``"enter"``
slot of :mod:`autograph.bytecode.resume`), whose exit is the original's own
``with`` exit code. That is exact when the state inside each open block is the
one the block itself set; :func:`check_resumable` refuses the rest.
"""
from __future__ import annotations

import inspect
import types
from typing import Any

import torch

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.handlers import handler
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue, specialise
from autograph.guards.sources import AttrSource

STATE_CONTEXT = break_kind(
    "state-context", "a torch state context (grad mode, inference mode, autocast) is used in a way "
    "a resume function cannot reproduce",
    "keep state changes inside `with` blocks and avoid changing the state by hand inside one")

_GRAD_CLASSES = (torch.no_grad, torch.enable_grad, torch.set_grad_enabled)
_enter_inference = torch.autograd.grad_mode._enter_inference_mode
_exit_inference = torch.autograd.grad_mode._exit_inference_mode
_enter_autocast = torch.amp.autocast_mode._enter_autocast
_exit_autocast = torch.amp.autocast_mode._exit_autocast


def state_snapshot() -> tuple:
    """The thread-local state these contexts switch (compared at a break)."""
    out: list[Any] = [torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
                      torch.is_autocast_cache_enabled()]
    for device in ("cpu", "cuda"):
        out += [torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)]
    return tuple(out)


def _state_node(tx, target, args: tuple, hint: str):
    """A node whose effect is the point (kept by dead-code elimination)."""
    node = tx.graph.graph.create_node("call_function", target, args, {}, name=tx.graph._name(hint))
    node.meta["mutates"] = True
    node.meta["state"] = True  # thread-local state only: no graph is run for these alone
    node.meta["example_value"] = None
    node.stack_trace = tx.graph.current_trace
    return node


def _set_grad(tx, enabled: bool) -> None:
    """Switch grad mode for the rest of the capture and in the graph at this point.

    A switch to the mode already in force is no node (as in Dynamo, which coalesces them): the
    graph runs only when grad mode at its entry is the one capture saw (always guarded), so the
    mode at this point of the graph is the capture's, and the switch would change nothing."""
    if torch.is_grad_enabled() == enabled:
        return
    torch._C._set_grad_enabled(enabled)
    _state_node(tx, torch._C._set_grad_enabled, (enabled,), "set_grad_enabled")


class StateContextValue(Value):
    """A torch state context manager made during capture or passed in.

    ``enter``/``exit`` put nodes in the graph and switch the real state for the rest
    of the capture; ``fresh(cg)`` is an expression making an unentered equivalent."""

    entered = False
    entered_step: int | None = None
    left_by_exception_step: int | None = None  # where an exception left its `with` block
    state_before: tuple | None = None
    state_inside: tuple | None = None

    # --- what each kind does -------------------------------------------------------
    def _enter(self, tx) -> None:
        raise NotImplementedError

    def _exit(self, tx) -> None:
        raise NotImplementedError

    def fresh(self, cg) -> str:
        raise NotImplementedError

    def _attr(self, tx, name: str) -> Value | None:
        return None

    # --- protocol ------------------------------------------------------------------
    def enter(self, tx) -> Value:
        if self.entered:
            raise Unsupported(f"entering {self.describe()} again while it is active", kind=STATE_CONTEXT)
        self.state_before = state_snapshot()
        self._enter(tx)
        self.entered = True
        self.entered_step = tx.step
        self.state_inside = state_snapshot()
        tx.open_contexts.append(self)
        return ConstantValue(None)

    def exit(self, tx) -> Value:
        if not self.entered:
            raise Unsupported(f"__exit__ of {self.describe()} that was not entered", kind=STATE_CONTEXT)
        if not tx.open_contexts or tx.open_contexts[-1] is not self:
            raise Unsupported(f"leaving {self.describe()} before a context entered after it",
                              kind=STATE_CONTEXT)
        tx.open_contexts.pop()
        self._exit(tx)
        self.entered = False
        return ConstantValue(None)

    def release(self) -> None:
        """Capture ended (or failed) inside the block: restore the real state."""

    def call_method(self, tx, name, args, kwargs):
        if name == "__enter__" and not args and not kwargs:
            return self.enter(tx)
        if name == "__exit__":
            return _ExitValue(self).call(tx, args, kwargs)
        if name == "clone" and not args and not kwargs:
            return self.clone(tx)
        return super().call_method(tx, name, args, kwargs)

    def clone(self, tx) -> "StateContextValue":
        raise Unsupported(f"`.clone()` of {self.describe()}", kind="unsupported-operation")

    # torch's _DecoratorContextManager: ``ctx(fn)`` wraps ``fn`` to run in ``ctx.clone()``
    decorates = False

    def call(self, tx, args, kwargs):
        if not self.decorates or len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
        fn = args[0]
        try:
            kind = fn.python_type()
        except Unsupported:
            kind = None
        code = getattr(fn, "code", None)
        if kind is not types.FunctionType or code is None or code.co_flags & inspect.CO_GENERATOR:
            raise Unsupported(f"{self.describe()} decorating {fn.describe()}", kind="unsupported-call")
        return ContextDecoratedValue(self, fn)

    def getattr(self, tx, name):
        if name == "__exit__":
            return _ExitValue(self)
        if name in ("__enter__", "clone"):
            return _MethodOf(self, name)
        if name == "__class__":
            return tx.wrap(self.python_type(), None, trusted=True)
        attr = self._attr(tx, name)
        if attr is not None:
            return attr
        raise Unsupported(f"attribute `.{name}` of {self.describe()}", kind="unsupported-operation")

    def reconstruct(self, cg):
        if self.entered:
            raise Unsupported(f"{self.describe()} is active and live at a graph break (entered by hand)",
                              kind=STATE_CONTEXT)
        return cg.shared(self, self.fresh(cg))


class GradModeContextValue(StateContextValue):
    """``torch.no_grad()``, ``enable_grad()``, ``set_grad_enabled(b)``.

    ``set_grad_enabled(b)`` switches the mode when it is *called* (``__enter__`` does
    nothing, ``__exit__`` restores the mode it replaced), so it also works as a plain
    function call."""

    def __init__(self, enabled: bool, *, immediate: bool = False):
        self.enabled = enabled
        self.immediate = immediate
        self.decorates = not immediate  # set_grad_enabled(b) switched already when made
        self.prev: bool | None = None

    def describe(self):
        if self.immediate:
            return f"torch.set_grad_enabled({self.enabled})"
        return "torch.enable_grad()" if self.enabled else "torch.no_grad()"

    def python_type(self):
        if self.immediate:
            return torch.set_grad_enabled
        return torch.enable_grad if self.enabled else torch.no_grad

    def switch_now(self, tx) -> "GradModeContextValue":
        """``set_grad_enabled(b)`` called: the mode changes here, whether or not a ``with`` follows."""
        self.prev = torch.is_grad_enabled()
        _set_grad(tx, self.enabled)
        tx.graph.immediate_switches.append(self)  # an effect until a `with` enters it (graph.py)
        return self

    def call(self, tx, args, kwargs):
        """``torch.set_grad_enabled(mode)(fn)``: the mode it switched to when made is put back
        (``set_grad_enabled.__call__``), then ``fn`` is decorated like ``no_grad()(fn)``."""
        if not (self.immediate and len(args) == 1 and not kwargs and not self.entered
                and self in tx.graph.immediate_switches):
            return super().call(tx, args, kwargs)
        _set_grad(tx, self.prev)
        tx.graph.immediate_switches.remove(self)  # no switch is pending any more
        self.decorates = True
        return super().call(tx, args, kwargs)

    def enter(self, tx) -> Value:
        if self.immediate:  # already switched when made; __enter__ only marks the block
            if self.entered:
                raise Unsupported(f"entering {self.describe()} again", kind=STATE_CONTEXT)
            self.state_before = (self.prev,) + state_snapshot()[1:]
            self.entered = True
            self.entered_step = tx.step
            self.state_inside = state_snapshot()
            tx.open_contexts.append(self)
            return ConstantValue(None)
        return super().enter(tx)

    def _enter(self, tx) -> None:
        self.prev = torch.is_grad_enabled()
        _set_grad(tx, self.enabled)

    def _exit(self, tx) -> None:
        _set_grad(tx, self.prev)

    def clone(self, tx):
        if self.immediate:  # set_grad_enabled(mode) made again: it switches again
            return GradModeContextValue(self.enabled, immediate=True).switch_now(tx)
        return GradModeContextValue(self.enabled)

    def _attr(self, tx, name):
        return ConstantValue(self.enabled) if name == "mode" and self.immediate else None

    def fresh(self, cg) -> str:
        # set_grad_enabled switches when made: its equivalent unentered manager is the other kind
        return f"{cg.const(torch.enable_grad if self.enabled else torch.no_grad)}()"


class InferenceModeValue(StateContextValue):
    """``torch.inference_mode(mode)``: one RAII guard of the C++ ``InferenceMode``."""

    decorates = True

    def __init__(self, mode: bool):
        self.mode = mode
        self.real = None   # the real guard while capture is inside the block
        self.node = None   # the graph's guard object

    def describe(self):
        return f"torch.inference_mode({self.mode})"

    def python_type(self):
        return torch.inference_mode

    def _attr(self, tx, name):
        return ConstantValue(self.mode) if name == "mode" else None

    def _enter(self, tx) -> None:
        self.real = _enter_inference(self.mode)
        self.node = _state_node(tx, _enter_inference, (self.mode,), "enter_inference_mode")

    def _exit(self, tx) -> None:
        _state_node(tx, _exit_inference, (self.node,), "exit_inference_mode")
        self.release()

    def release(self) -> None:
        if self.real is not None:
            real, self.real = self.real, None
            _exit_inference(real)

    def clone(self, tx):
        return InferenceModeValue(self.mode)

    def fresh(self, cg) -> str:
        return f"{cg.const(torch.inference_mode)}({self.mode!r})"


class AutocastValue(StateContextValue):
    """``torch.autocast(device_type, dtype, enabled, cache_enabled)`` (``torch.amp.autocast``)."""

    def __init__(self, real: torch.amp.autocast):
        self.args = (real.device, real.fast_dtype, real._enabled, real._cache_enabled)
        self.real = None
        self.node = None

    def describe(self):
        return f"torch.autocast{self.args!r}"

    def python_type(self):
        return torch.amp.autocast

    def _attr(self, tx, name):
        fields = dict(zip(("device", "fast_dtype", "_enabled", "_cache_enabled"), self.args))
        return ConstantValue(fields[name]) if name in fields else None

    def _enter(self, tx) -> None:
        self.real = _enter_autocast(*self.args)
        self.node = _state_node(tx, _enter_autocast, self.args, "enter_autocast")

    def _exit(self, tx) -> None:
        _state_node(tx, _exit_autocast, (self.node,), "exit_autocast")
        self.release()

    def release(self) -> None:
        if self.real is not None:
            real, self.real = self.real, None
            _exit_autocast(real)

    def clone(self, tx):
        value = AutocastValue.__new__(AutocastValue)
        value.args, value.real, value.node = self.args, None, None
        return value

    def fresh(self, cg) -> str:
        device, dtype, enabled, cache = self.args
        return (f"{cg.const(torch.amp.autocast)}({device!r}, dtype={cg.const(dtype)}, enabled={enabled!r}, "
                f"cache_enabled={cache!r})")


class ContextDecoratedValue(Value):
    """``torch.no_grad()(fn)`` / ``@torch.inference_mode()`` on a function made or read during
    capture: each call runs ``fn`` inside a fresh clone of the context, as torch's
    ``context_decorator`` does."""

    def __init__(self, ctx: StateContextValue, fn: Value):
        self.ctx = ctx
        self.fn = fn

    def describe(self):
        return f"{self.fn.describe()} decorated by {self.ctx.describe()}"

    def python_type(self):
        return types.FunctionType

    def call(self, tx, args, kwargs):
        ctx = self.ctx.clone(tx)
        ctx.enter(tx)
        try:
            out = self.fn.call(tx, args, kwargs)
        except Unsupported as exc:
            if exc.exc is not None and ctx.entered:  # a Python exception leaves the block
                ctx.exit(tx)
            raise
        ctx.exit(tx)
        return out

    def getattr(self, tx, name):
        if name == "__wrapped__":
            return self.fn
        if name in ("__name__", "__qualname__", "__doc__", "__module__"):  # functools.wraps copies them
            return self.fn.getattr(tx, name)
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        return cg.shared(self, f"{self.ctx.fresh(cg)}({cg.reconstruct(self.fn)})")


class _MethodOf(Value):
    def __init__(self, ctx: StateContextValue, name: str):
        self.ctx = ctx
        self.name = name

    def describe(self):
        return f"method .{self.name} of {self.ctx.describe()}"

    def call(self, tx, args, kwargs):
        return self.ctx.call_method(tx, self.name, args, kwargs)


class _ExitValue(_MethodOf):
    """The ``__exit__`` a ``with`` block keeps on the stack. At a graph break it is not
    rebuilt: the resume function re-enters a fresh equivalent context instead."""

    def __init__(self, ctx: StateContextValue):
        super().__init__(ctx, "__exit__")

    def call(self, tx, args, kwargs):
        if any(not (a.is_constant() and a.as_python_constant() is None) for a in args) \
                and not _known_exception_triple(args, kwargs):
            raise Unsupported(f"leaving a `with {self.ctx.describe()}` block with an exception", kind="state-context")
        # torch's state contexts restore the state and return None: the exception goes on
        self.ctx.exit(tx)
        self.ctx.left_by_exception_step = tx.step
        return ConstantValue(None)

    def reentered_context(self, cg) -> str | None:
        return self.ctx.fresh(cg)

    def exit_may_swallow(self) -> bool:
        return False  # torch's state contexts restore state and let the exception through

    def reconstruct(self, cg):
        raise Unsupported(f"the exit of a `with {self.ctx.describe()}` block outside its stack slot",
                          kind=STATE_CONTEXT)


def _known_exception_triple(args: list[Value], kwargs: dict) -> bool:
    """Whether ``__exit__`` gets ``(type(exc), exc, exc.__traceback__)`` of an exception raised
    during capture (``WITH_EXCEPT_START``): it happens wherever this graph runs, so the block is
    left at this point of the graph, before the handler that follows."""
    from autograph.capture.families.with_exits import own_traceback_triple
    return not kwargs and len(args) == 3 and own_traceback_triple(None, *args)


def is_state_exit(value: Value) -> bool:
    """Whether ``value`` (a ``with`` block's exit slot) is a torch state context's exit."""
    return isinstance(value, _ExitValue)


def open_blocks(stack: list[Value]) -> list[StateContextValue]:
    """The state contexts whose ``with`` blocks are open at a break, outermost first."""
    return [v.ctx for v in stack if isinstance(v, _ExitValue)]


def _refuse(tx, reason: str) -> Unsupported:
    """Why the open state contexts cannot be carried over; the break moves to before the first."""
    exc = Unsupported(reason, kind=STATE_CONTEXT)
    steps = [c.entered_step for c in tx.open_contexts if c.entered_step is not None]
    exc.retry_step = min(steps) if steps else None
    return exc


def leave_for_break(tx, stack: list[Value]) -> None:
    """At a break: check that the open blocks can be re-entered exactly, then leave them at
    the end of the graph (innermost first), so the graph hands the state back unchanged."""
    left = [c.left_by_exception_step for c in open_blocks(stack) if not c.entered]
    if left:  # in the `with`'s own handler, after its exit: no resume re-enters there
        exc = Unsupported("a graph break in the exception handler of a `with` block already left",
                          kind=STATE_CONTEXT)
        exc.retry_step = left[0]  # break where the exception left the block (the exit runs in Python)
        raise exc
    blocks = open_blocks(stack)
    if [c for c in tx.open_contexts] != blocks:
        raise _refuse(tx, "a torch state context entered by hand (not by `with`) is active at a graph break")
    here = state_snapshot()
    for inner, outer in zip(blocks[1:], blocks[:-1]):
        if inner.state_before != outer.state_inside:
            raise _refuse(tx, f"the state changed by hand inside `with {outer.describe()}` before a graph break")
    if blocks and here != blocks[-1].state_inside:
        raise _refuse(tx, f"the state changed by hand inside `with {blocks[-1].describe()}` before a graph break")
    for ctx in reversed(blocks):
        ctx.exit(tx)


def check_balanced(tx, initial: tuple) -> bool:
    """After the graph (and the blocks left for a break): only grad mode may differ from
    ``initial`` (the transformed code sets it); returns whether it does."""
    if tx.open_contexts:
        raise _refuse(tx, f"{tx.open_contexts[-1].describe()} is still active where the capture ends")
    now = state_snapshot()
    if now[1:] != initial[1:]:
        raise Unsupported("inference mode or autocast state changed outside a `with` block", kind=STATE_CONTEXT)
    return now[0] != initial[0]


def _construct(tx, cls, args, kwargs):
    if cls in _GRAD_CLASSES:
        if cls is torch.set_grad_enabled:
            if len(args) + len(kwargs) != 1 or (kwargs and "mode" not in kwargs):
                return NotImplemented
            flag = args[0] if args else kwargs["mode"]
            if not flag.is_constant():
                return NotImplemented
            return GradModeContextValue(bool(flag.as_python_constant()), immediate=True).switch_now(tx)
        if len(args) == 1 and not kwargs:  # no_grad(fn): its __new__ returns no_grad()(fn)
            return GradModeContextValue(cls is torch.enable_grad).call(tx, list(args), {})
        if args or kwargs:
            return NotImplemented
        return GradModeContextValue(cls is torch.enable_grad)
    if cls is torch.inference_mode:
        flag = args[0] if args else kwargs.get("mode", ConstantValue(True))
        if len(args) + len(kwargs) > 1 or (kwargs and "mode" not in kwargs) or not flag.is_constant() \
                or type(flag.as_python_constant()) is not bool:
            return NotImplemented  # inference_mode(fn) decorates: left to the generic path
        return InferenceModeValue(flag.as_python_constant())
    if cls is torch.amp.autocast:
        if not all(v.is_constant() or v.is_symbolic_scalar() for v in [*args, *kwargs.values()]):
            return NotImplemented
        # a dynamic number's decision made real, guarded as an expression, so calls that decide
        # alike share the entry: ``enabled=step % 3 == 0`` (a ShapeEnv guard), ``enabled=step / 10
        # < 0.5`` (a recipe's guard)
        args = [ConstantValue(specialise(a.as_python_constant())) for a in args]
        kwargs = {k: ConstantValue(specialise(v.as_python_constant())) for k, v in kwargs.items()}
        try:  # a real one: its checks and the dtype default are torch's own
            real = cls(*[a.as_python_constant() for a in args],
                       **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as exc:  # noqa: BLE001 - the user's error, raised where Python raises it
            raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")
        if "dtype" not in kwargs and len(args) < 2:
            _guard_autocast_dtype(tx, real.device, real.fast_dtype)
        return AutocastValue(real)
    return NotImplemented


def _guard_autocast_dtype(tx, device: str, dtype) -> None:
    """``autocast(device)`` without a dtype takes the device's current autocast dtype."""
    tx.guards.answer(torch.get_autocast_dtype, (device,), {}, f"torch.get_autocast_dtype({device!r})", dtype)


def _set_grad_enabled_call(tx, args, kwargs):
    """``torch._C._set_grad_enabled(b)``: a switch, in the graph and for the capture."""
    if len(args) != 1 or kwargs or not args[0].is_constant():
        return NotImplemented
    _set_grad(tx, bool(args[0].as_python_constant()))
    return ConstantValue(None)


def _wrap_grad_mode(tx, obj, source):
    tx.guards.type_(source, obj)
    return GradModeContextValue(type(obj) is torch.enable_grad)


def _wrap_inference_mode(tx, obj, source):
    tx.guards.type_(source, obj)
    mode = tx.wrap(obj.mode, AttrSource(source, "mode") if source is not None else None,
                   pin=lambda o=obj: o.mode, what="inference_mode.mode")
    if not mode.is_constant() or type(mode.as_python_constant()) is not bool:
        raise Unsupported("torch.inference_mode with a mode that is not a bool", kind="state-context")
    return InferenceModeValue(mode.as_python_constant())


def _wrap_autocast(tx, obj, source):
    tx.guards.type_(source, obj)
    for name in ("device", "fast_dtype", "_enabled", "_cache_enabled"):
        tx.wrap(getattr(obj, name), AttrSource(source, name) if source is not None else None,
                pin=lambda o=obj, n=name: getattr(o, n), what=f"autocast.{name}")
    return AutocastValue(obj)


def _special(obj: Any, name: str) -> Any:
    """``obj.name`` looked up on its type, bound as CPython's special-method lookup binds it."""
    for klass in type(obj).__mro__:
        if name in klass.__dict__:
            attr = klass.__dict__[name]
            get = getattr(type(attr), "__get__", None)
            return get(attr, obj, type(obj)) if get is not None else attr
    return None


def before_with(mgr: Any) -> tuple[Any, Any]:
    """``BEFORE_WITH`` run by the transformed code at a graph break: ``(bound __exit__, the
    value of __enter__())`` -- the two stack slots the ``with`` block keeps."""
    enter = _special(mgr, "__enter__")
    if enter is None:
        raise TypeError(f"'{type(mgr).__name__}' object does not support the context manager protocol")
    exit_fn = _special(mgr, "__exit__")
    if exit_fn is None:
        raise TypeError(f"'{type(mgr).__name__}' object does not support the context manager protocol "
                        "(missed __exit__ method)")
    return exit_fn, enter()


def _python_manager(mgr: Value) -> bool:
    """A manager whose __enter__/__exit__ capture interprets (never runs for real at capture time)."""
    if isinstance(mgr, StateContextValue):
        return True
    try:
        cls = mgr.python_type()
    except Unsupported:
        return False
    return all(isinstance(getattr(cls, name, None), types.FunctionType) for name in ("__enter__", "__exit__"))


def _before_with(tx, frame, inst):
    mgr = frame.stack[-1]
    if not _python_manager(mgr):
        raise Unsupported(f"`with` on {mgr.describe()} (its __enter__/__exit__ are not Python code)",
                          kind="unsupported-call")
    frame.pop()
    exit_fn = mgr.getattr(tx, "__exit__")
    exit_fn.created_step = tx.step  # a block whose exit cannot be rebuilt breaks here instead
    frame.push(exit_fn)
    frame.push(mgr.call_method(tx, "__enter__", [], {}))


def install() -> None:
    handler("BEFORE_WITH")(_before_with)
    registry.add_class_call_hook(_construct)
    registry.register_torch_call(torch._C._set_grad_enabled, _set_grad_enabled_call)
    for cls in (torch.no_grad, torch.enable_grad):
        registry.register_type_wrapper(cls, _wrap_grad_mode)
    registry.register_type_wrapper(torch.inference_mode, _wrap_inference_mode)
    registry.register_type_wrapper(torch.amp.autocast, _wrap_autocast)
    registry.add_torch_breaks({
        "set_autocast_enabled", "set_autocast_dtype", "set_autocast_cache_enabled", "autocast_increment_nesting",
        "autocast_decrement_nesting", "clear_autocast_cache", "set_autocast_cpu_enabled", "set_autocast_cpu_dtype",
        "set_autocast_gpu_dtype", "set_autocast_ipu_enabled", "set_autocast_xla_enabled", "_enter_autocast",
        "_exit_autocast", "_enter_inference_mode", "_exit_inference_mode"})
