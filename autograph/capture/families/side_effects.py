"""Side effects on the world outside the capture, replayed after the graph.

* ``obj.attr = v`` on an object from outside (a global flag holder, a context-var
  wrapper) is recorded instead of breaking; later reads in the same capture see the
  stored value. (``global x; x = v`` breaks: interpreter's STORE_GLOBAL says why.)
* Calls to *reorderable* logging functions (``logging.Logger`` methods,
  ``warnings.warn``, ``*.logging`` helpers such as ``warning_once``; TorchDynamo's
  ``reorderable_logging_functions`` idea) are recorded: they return None and only
  emit text, so running them after the graph changes nothing but the moment the
  text appears.

The transformed code performs the recorded effects in order right after the
compiled graph ran, before the breaking instruction or the return: the state
eager would leave at that point.

All of them live in one :class:`SideEffects` (the ``side_effects`` state slot, shared with the
graph builder), which codegen consumes. Because they run *after* the graph, the graph
must not raise after any of them in program order: the graph builder splits the graph
before an operation that can raise at run time on values the fake run cannot see
(``effects.EffectRecorder.may_raise``) while effects are pending, and before an
in-place write to a tensor a pending logging call will format (the handler must see
the value at the call, not the mutated one). See ARCHITECTURE.md, "Side effects".
"""
from __future__ import annotations

import logging
import types
import warnings
from typing import TYPE_CHECKING, Any

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.keyword_args import keyword_text

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.engine.codegen import Codegen

_LOGGER_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "log", "warning_once", "info_once",
                   "warning_advice"}


class SideEffects:
    """Every world effect of one capture that the transformed code performs after the graph,
    in program order: ``("store", obj_value, real, name, value)``, ``("call", fn, args,
    kwargs, where)``, ``("replay", line)``. ``where`` is the user's instruction that made a
    call which looks at its caller's frame (logging, ``warnings.warn``; see :func:`user_line`),
    else None."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        # calls recorded before any graph operation or other effect, that no graph operation can
        # observe: the transformed code makes them first, in program order (``record_leading_call``)
        self.leading: list[tuple] = []

    def __bool__(self) -> bool:
        return bool(self.events)

    def formatted_tensors(self) -> list[Value]:
        """Tensor values that pending calls (logging, ``warnings.warn``) will format or hand to a
        handler when they are replayed: they must still hold the value they had at the call."""
        out: list[Value] = []
        for event in self.events:
            if event[0] == "call" and is_reorderable_logging(event[1]):
                for arg in [*event[2], *event[3].values()]:
                    out.extend(_tensor_values(arg))
        return out


def _tensor_values(value: Value) -> list[Value]:
    from autograph.capture.families.tensors import TensorValue
    if isinstance(value, TensorValue):
        return [value]
    tensor = getattr(value, "tensor", None)  # an ndarray over a graph tensor (numpy_values.py)
    if isinstance(tensor, TensorValue):
        return [tensor]
    items = getattr(value, "items", None)
    if isinstance(items, dict):
        items = list(items.values())
    if isinstance(items, (list, tuple)):
        return [t for item in items if isinstance(item, Value) for t in _tensor_values(item)]
    return []


SIDE_EFFECTS = registry.state_slot("side_effects", SideEffects, __name__)


def of(tx) -> SideEffects:
    """The capture's side effects (made on first use; the graph builder sees the same object)."""
    effects = SIDE_EFFECTS.of(tx)
    tx.graph.side_effects = effects
    return effects


def pending_in(tx) -> bool:
    """Whether the capture recorded any effect to replay after its graph."""
    return bool(SIDE_EFFECTS.peek(tx))


def _events(tx) -> list:
    return of(tx).events


def record_store(tx, obj_value: Value, real: Any, name: str, value: Value) -> None:
    """Remember ``real.name = value`` (``obj_value`` rebuilds ``real`` in the transformed code)."""
    _events(tx).append(("store", obj_value, real, name, value))


def stored_attributes(tx) -> list[tuple[Any, str, Value]]:
    """``(real object, name, value)`` of each attribute store this capture made so far, in order."""
    return [(event[2], event[3], event[4]) for event in _events(tx) if event[0] == "store"]


def pending(tx, real: Any, name: str) -> Value | None:
    """The value stored into ``real.name`` earlier in this capture, if any."""
    for event in reversed(_events(tx)):
        if event[0] == "store" and event[2] is real and event[3] == name:
            return event[4]
    return None


def is_reorderable_logging(fn: Any) -> bool:
    """Logging calls that may run after the graph (they return None and only emit text)."""
    if fn is warnings.warn:
        return True
    self_obj = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "")
    if isinstance(self_obj, (logging.Logger, logging.LoggerAdapter)) and name in _LOGGER_METHODS:
        return True
    module = getattr(fn, "__module__", None) or ""
    return isinstance(fn, (types.FunctionType, types.MethodType)) and module.split(".")[-1] == "logging" \
        and name in _LOGGER_METHODS


_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "warn": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}


def _defer_only_when_silent(tx, fn: Any) -> None:
    """A logging call is deferred past the graph only while its logger drops it (level below the
    logger's): one that reaches handlers runs them in program order, since a handler (a user's
    ``emit``, a stream the function reads back) changes what the rest of the function sees
    (``len(handler.records)`` read after the call was the count before it). A guard keeps the
    deferral to calls where the logger still drops the level."""
    logger = getattr(fn, "__self__", None)
    if isinstance(logger, logging.LoggerAdapter):
        logger = logger.logger
    level = _LEVELS.get(getattr(fn, "__name__", ""))
    if not isinstance(logger, logging.Logger) or level is None:  # warnings.warn, logging.info(), helpers
        if fn is warnings.warn:
            return  # (a function calling warnings.warn runs as plain Python: families/frames.py)
        raise Unsupported(f"{getattr(fn, '__qualname__', 'logging call')}() may run handlers", kind=LOGGING_HANDLERS)
    if logger.isEnabledFor(level):
        raise Unsupported(f"{logger.name!r} logs {logging.getLevelName(level)}: its handlers run at the call",
                          kind=LOGGING_HANDLERS)
    tx.guards.python(("logging-drops", id(logger), level), f"not logging.getLogger({logger.name!r}).isEnabledFor({level})",
                     lambda: not logger.isEnabledFor(level), words=f"{logger.name} still drops level {level}")


LOGGING_HANDLERS = break_kind(
    "logging-runs-handlers", "a logging call whose logger passes the level on to handlers: they run user code "
    "(an `emit`, a stream the function reads back), so the call runs in Python at its place in the program",
    "log outside the hot function, or raise the logger's level where the logging is not needed")

LOGGED_MUTABLE = break_kind(
    "logging-a-mutable-value", "a logging call (or `warnings.warn`) is given a list, dict, set or object made "
    "or changed during capture: deferred past the graph it would format the value as the capture leaves "
    "it, not as it is at the call, so it runs in Python at the call",
    "log a copy or the text (`str(items)`) when the value changes later")


def _mutable_args(values: list[Value]) -> list[Value]:
    """Arguments whose later changes a deferred call would see (tensors and ndarrays are
    guarded by the graph builder instead: a write to one ends the graph first)."""
    from autograph.capture.families.numpy_values import NumpyArrayValue
    out = []
    for value in values:
        if isinstance(value, NumpyArrayValue) or _tensor_values(value) == [value]:
            continue
        if value.mutable:
            out.append(value)
        items = getattr(value, "items", None)
        if isinstance(items, dict):
            items = list(items.values())
        if isinstance(items, (list, tuple)):
            out.extend(_mutable_args([v for v in items if isinstance(v, Value)]))
    return out


def record_call(tx, fn: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """Defer ``fn(*args, **kwargs)`` to after the graph; the call's value is None."""
    from autograph.capture.core.constants import ConstantValue
    if is_reorderable_logging(fn):
        changing = _mutable_args([*args, *kwargs.values()])
        if changing:
            raise Unsupported(f"{getattr(fn, '__name__', 'logging call')} of {changing[0].describe()}",
                              kind=LOGGED_MUTABLE)
        _defer_only_when_silent(tx, fn)
    _events(tx).append(("call", fn, list(args), dict(kwargs), _where_if_observed(tx, fn)))
    return ConstantValue(None)


def record_leading_call(tx, fn: Any, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """Make ``fn(*args, **kwargs)`` the first thing the transformed code does, before reading its
    inputs and running the graph, when nothing came before it in this capture (no graph operation,
    no recorded effect): that is its place in program order. The call must be one no graph
    operation can observe. None when something came before it (the caller records it otherwise)."""
    from autograph.capture.core.constants import ConstantValue
    effects = of(tx)
    if effects.events or tx.graph.op_count:
        return None
    effects.leading.append((fn, list(args), dict(kwargs), _where_if_observed(tx, fn)))
    return ConstantValue(None)


def leading_lines(cg: "Codegen", tx) -> list[str]:
    """Statements of the calls :func:`record_leading_call` put first, in order."""
    effects = SIDE_EFFECTS.peek(tx)
    return [_call_text(cg, *leading) for leading in (effects.leading if effects is not None else ())]


def user_line(tx) -> tuple | None:
    """The user's instruction running now (innermost interpreted frame): its code, offset,
    line and module globals."""
    frame = tx.frames[-1] if getattr(tx, "frames", None) else None
    if frame is None or frame.current is None:
        return None
    return (frame.code, frame.current.offset, frame.current.lineno, frame.fn_globals)


def _where_if_observed(tx, fn: Any) -> tuple | None:
    """Where a deferred call that looks at its caller's frame is made from. A logging record
    takes its ``funcName``/``lineno``/``pathname`` from the first frame outside logging, and
    ``warnings.warn`` its file, line, module (for filters) and ``__warningregistry__`` from its
    caller: replayed from the transformed code both would name autograph's generated code."""
    return user_line(tx) if is_reorderable_logging(fn) else None


def _call_text(cg: "Codegen", fn: Any, args: list[Value], kwargs: dict[str, Value], where: tuple | None = None) -> str:
    parts = [cg.reconstruct(a) for a in args] + [keyword_text(k, cg.reconstruct(v)) for k, v in kwargs.items()]
    site_call = cg.user_line_call(where) if where is not None else None
    if site_call is not None:  # made from a frame that claims the user's file, line and module
        return f"{site_call}({', '.join([cg.const(fn), *parts])})"
    return f"{cg.const(fn)}({', '.join(parts)})"


def record_replay(tx, line: Any) -> None:
    """``line(cg) -> str | None``: a statement written when the entry is generated (its text may
    depend on how far capture went: items consumed from the caller's iterator)."""
    _events(tx).append(("replay", line))


def replay_lines(cg: "Codegen", tx) -> list[str]:
    """Statements of the transformed code that perform the recorded effects, in order."""
    lines = []
    for event in _events(tx):
        if event[0] == "replay":
            text = event[1](cg)
            if text:
                lines.append(text)
        elif event[0] == "store":
            _, obj_value, _real, name, value = event
            lines.append(f"setattr({cg.reconstruct(obj_value)}, {name!r}, {cg.reconstruct(value)})")
        else:
            lines.append(_call_text(cg, *event[1:]))
    return lines


def _logging_call(tx, fn, args, kwargs):
    if not is_reorderable_logging(fn):
        return NotImplemented
    return record_call(tx, fn, args, kwargs)


class DeferredLogCall(Value):
    """``logger.warning`` & co. of a real logger: calling it records the call."""

    def __init__(self, fn: Any):
        self.fn = fn

    def describe(self):
        return f"logging call {getattr(self.fn, '__name__', '?')}"

    def call(self, tx, args, kwargs):
        return record_call(tx, self.fn, args, kwargs)

    def reconstruct(self, cg):
        return cg.const(self.fn)


def _wrap_logger(tx, obj, source):
    from autograph.capture.families.objects import ObjectValue

    class LoggerValue(ObjectValue):
        def getattr(self, tx, name):
            if name in _LOGGER_METHODS and callable(getattr(self.obj, name, None)):
                return DeferredLogCall(getattr(self.obj, name))
            return super().getattr(tx, name)

    tx.guards.type_(source, obj)
    return LoggerValue(obj, source)


def install() -> None:
    """Register the logging rules."""
    registry.add_opaque_call_rule(_logging_call)
    for cls in (logging.Logger, logging.RootLogger):
        registry.register_type_wrapper(cls, _wrap_logger, replace=False)
