"""Side effects on the world outside the capture, replayed after the graph.

* ``obj.attr = v`` and ``del obj.attr`` on an object from outside (a global flag holder, a
  context-var wrapper) are recorded instead of breaking; later reads in the same capture see
  the stored value (or the attribute gone: :data:`DELETED`).
* ``global x; x = v`` and ``del x`` (also in an inlined function of another module, whose
  globals are that module's dict) are recorded as stores into that globals dict; later loads
  of the name in the same capture see them.
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
    in program order: ``("store", obj_value, real, name, value, direct)`` (value :data:`DELETED`:
    ``del real.name``), ``("dict-store", namespace, real, name, value)`` (``real.__dict__[name] =
    value``), ``("global", globals_dict, name, value)`` (value :data:`DELETED`: ``del name``),
    ``("call", fn, args, kwargs, where)``, ``("replay", line)``. ``where`` is the user's
    instruction that made a call which looks at its caller's frame (logging, ``warnings.warn``;
    see :func:`user_line`), else None."""

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


class _Deleted(Value):
    """What a recorded ``del`` leaves: the name is absent (never rebuilt, never a value)."""

    def describe(self):
        return "a deleted attribute"


DELETED = _Deleted()


def record_store(tx, obj_value: Value, real: Any, name: str, value: Value, *, direct: bool = False) -> None:
    """Remember ``real.name = value`` (``obj_value`` rebuilds ``real`` in the transformed code).
    ``direct``: the caller guarded that the type's ``__setattr__`` amounts to
    ``object.__setattr__`` for this store, and the replay calls that instead."""
    _events(tx).append(("store", obj_value, real, name, value, direct))


def record_delete(tx, obj_value: Value, real: Any, name: str) -> None:
    """Remember ``del real.name``: the caller checked the attribute is there at this point of the
    program (as Python would, raising ``AttributeError`` otherwise)."""
    _events(tx).append(("store", obj_value, real, name, DELETED, False))


def record_dict_store(tx, namespace: Value, real: Any, name: str, value: Value) -> None:
    """Remember ``real.__dict__[name] = value`` (``namespace`` rebuilds ``real.__dict__``): an
    instance-dict store that bypasses descriptors and ``__setattr__``, replayed as such."""
    _events(tx).append(("dict-store", namespace, real, name, value))


_STORES = ("store", "dict-store")


def pending(tx, real: Any, name: str, reader: Value | None = None) -> Value | None:
    """The value stored under ``name`` into ``real``'s instance dict earlier in this capture, if any
    (:data:`DELETED` when the last change was a ``del``; a data descriptor of the class, when
    there is one, still decides what ``real.name`` reads). A store counts when it went to the
    same instance dict (two objects may share one: an attribute proxy); a module's instance dict
    is its globals, so a ``global`` store of a function of that module counts. Given the
    ``reader`` value (``real`` read through its source), whether each store of ``name`` reached
    this dict is guarded: the same dict, or another, on later calls."""
    found = None
    mine = _namespace(real)
    for event in _events(tx):
        if event[0] == "global":
            if event[2] == name and mine is not None and event[1] is mine:
                found = event[3]
            continue
        if event[0] not in _STORES or event[3] != name:
            continue
        theirs = _namespace(event[2])
        if mine is None or theirs is None:  # (a cell, an object without an instance dict): by identity
            if event[2] is real:
                found = event[4]
            continue
        if reader is not None:
            _guard_namespaces(tx, _store_source(event), theirs, _namespace_source(reader.source), mine,
                              mine is theirs)
        if mine is theirs:
            found = event[4]
    return found


def stored_into(tx, real: Any) -> bool:
    """Whether this capture stored into (or deleted from) ``real``'s attributes, replayed after the graph."""
    return any(event[0] in _STORES and event[2] is real for event in _events(tx))


def stores_into(tx, namespace: dict, source: Any) -> list[tuple[str, Value]]:
    """``(name, value)`` of each store this capture made so far into the instance dict or globals
    ``namespace`` (read through ``source``), in order (value :data:`DELETED` for a ``del``);
    whether each store's object has this dict is guarded as in :func:`pending`."""
    out = []
    for event in _events(tx):
        if event[0] == "global":
            if event[1] is namespace:
                out.append((event[2], event[3]))
            continue
        theirs = _namespace(event[2]) if event[0] in _STORES else None
        if theirs is None:
            continue
        _guard_namespaces(tx, _store_source(event), theirs, source, namespace, theirs is namespace)
        if theirs is namespace:
            out.append((event[3], event[4]))
    return out


def _namespace(obj: Any) -> dict | None:
    """``obj``'s instance dict, where its attributes live (None when it has none)."""
    try:
        d = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return None
    return d if isinstance(d, dict) else None


def _namespace_source(source: Any) -> Any:
    if source is None:
        return None
    from autograph.guards.sources import AttrSource
    return AttrSource(source, "__dict__")


def _store_source(event: tuple) -> Any:
    if event[0] == "dict-store":  # the namespace dict's own source
        return event[1].source
    return _namespace_source(event[1].source)


def _guard_namespaces(tx, src_a: Any, ns_a: Any, src_b: Any, ns_b: Any, same: bool) -> None:
    """Keep whether a store and a read reached the same instance dict true on later calls."""
    if src_a is None and src_b is None or src_a == src_b:
        return  # fixed objects (pinned or trusted), or one source: nothing can change
    if src_a is not None and src_b is not None:
        if same:
            tx.guards.same_object(src_a, src_b)
        else:
            tx.guards.distinct(src_a, src_b)
        return
    src, other = (src_a, ns_b) if src_a is not None else (src_b, ns_a)
    if same:
        tx.guards.id_(src, other)
    else:
        tx.guards.not_object(src, other)


def record_global(tx, globals_dict: dict, name: str, value: Value) -> None:
    """Remember ``global name; name = value`` (:data:`DELETED`: ``del name``) in ``globals_dict``,
    the globals of the function that ran the store."""
    _events(tx).append(("global", globals_dict, name, value))


def pending_global(tx, globals_dict: dict, name: str) -> Value | None:
    """The value this capture stored into global ``name`` of ``globals_dict`` so far, if any
    (:data:`DELETED` when it deleted it): a ``global`` store, or ``module.name = v`` /
    ``module.__dict__[name] = v`` on the module these globals belong to."""
    effects = SIDE_EFFECTS.peek(tx)
    for event in reversed(effects.events if effects is not None else ()):
        if event[0] == "global" and event[1] is globals_dict and event[2] == name:
            return event[3]
        if event[0] in _STORES and event[3] == name and isinstance(event[2], types.ModuleType) \
                and event[2].__dict__ is globals_dict:
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


_LEVEL_OF_HELPER = {"warning_once": logging.WARNING, "warning_advice": logging.WARNING, "info_once": logging.INFO}


def _logger_and_level(fn: Any) -> tuple[logging.Logger | None, int | None]:
    """The logger a logging call goes to and the level it logs at (None, None when unknown:
    ``logging.info()`` of the root logger through a module function, other helpers)."""
    logger = getattr(fn, "__self__", None)
    if isinstance(logger, logging.LoggerAdapter):
        logger = logger.logger
    name = getattr(fn, "__name__", "")
    level = _LEVELS.get(name, _LEVEL_OF_HELPER.get(name))
    return (logger, level) if isinstance(logger, logging.Logger) and level is not None else (None, None)


def _stream_only_handlers(logger: logging.Logger) -> bool:
    """Whether every handler a record of ``logger`` reaches (the logger, then its parents while
    ``propagate``; ``logging.lastResort`` when there are none) only writes text where the function
    cannot read it back, with no filter anywhere: then running them later changes only the moment
    text appears. Such handlers are stdlib ``StreamHandler``/``FileHandler`` objects on a file
    stream (an ``io.TextIOWrapper``: ``sys.stderr``, a log file; never an in-memory ``StringIO``),
    ``NullHandler``, and the test runner's own capture (pytest's logging plugin)."""
    if logger.filters:
        return False
    found = False
    current: logging.Logger | None = logger
    while current is not None:
        if current.filters and current is not logger:
            return False
        for h in current.handlers:
            found = True
            if not _writes_text_only(h):
                return False
        current = current.parent if current.propagate else None
    if not found:
        last = logging.lastResort
        return last is None or _writes_text_only(last)
    return True


def _writes_text_only(handler: logging.Handler) -> bool:
    """One handler of :func:`_stream_only_handlers`' kinds, without filters."""
    import io
    if handler.filters:
        return False
    if type(handler).__module__.startswith("_pytest."):
        return True
    if type(handler) is logging.NullHandler:
        return True
    return type(handler) in (logging.StreamHandler, logging.FileHandler, logging._StderrHandler) \
        and isinstance(getattr(handler, "stream", None), io.TextIOWrapper)


def _defer_only_when_silent(tx, fn: Any) -> None:
    """A logging call is deferred past the graph only while its logger drops it (level below the
    logger's), or while every handler it reaches only writes text the function cannot read back
    (:func:`_stream_only_handlers`): one that reaches other handlers runs them in program order, since a handler (a user's
    ``emit``, a stream the function reads back) changes what the rest of the function sees
    (``len(handler.records)`` read after the call was the count before it). A guard keeps the
    deferral to calls where this still holds."""
    logger, level = _logger_and_level(fn)
    if logger is None or level is None:  # warnings.warn, logging.info(), other helpers
        if fn is warnings.warn:
            return  # (a function calling warnings.warn runs as plain Python: families/frames.py)
        raise Unsupported(f"{getattr(fn, '__qualname__', 'logging call')}() may run handlers", kind=LOGGING_HANDLERS)

    def harmless() -> bool:
        return not logger.isEnabledFor(level) or _stream_only_handlers(logger)

    if not harmless():
        raise Unsupported(f"{logger.name!r} logs {logging.getLevelName(level)}: its handlers run at the call",
                          kind=LOGGING_HANDLERS)
    tx.guards.python("logging-harmless", (id(logger), level),
                     f"logging.getLogger({logger.name!r}) drops level {level} or only writes text to files",
                     harmless, words=f"{logger.name} still drops level {level} or only writes text to files")


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
    with cg.reading_live():  # the entry's first lines: before ``pre`` binds its reads
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
            _, obj_value, _real, name, value, direct = event
            if value is DELETED:
                lines.append(f"delattr({cg.reconstruct(obj_value)}, {name!r})")
            else:
                store = cg.const(object.__setattr__) if direct else "setattr"
                lines.append(f"{store}({cg.reconstruct(obj_value)}, {name!r}, {cg.reconstruct(value)})")
        elif event[0] == "dict-store":
            _, namespace, _real, name, value = event
            lines.append(f"{cg.reconstruct(namespace)}[{name!r}] = {cg.reconstruct(value)}")
        elif event[0] == "global":
            _, globals_dict, name, value = event
            if value is DELETED:
                lines.append(f"del {cg.const(globals_dict)}[{name!r}]")
            else:
                lines.append(f"{cg.const(globals_dict)}[{name!r}] = {cg.reconstruct(value)}")
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
