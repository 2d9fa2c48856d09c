"""Exception state CPython sets without being asked: chaining and the handled exception.

When an exception is raised while another is being handled (an ``except`` body, a ``finally``
reached by an exception), ``_PyErr_SetObject`` sets the new one's ``__context__`` to the handled
one, first removing the new one from the handled one's context chain (no cycles).
``raise X from Y`` sets ``__cause__`` and ``__suppress_context__``. The handled exception is
what ``sys.exc_info()``/``sys.exception()`` and a bare ``raise`` see: ``PUSH_EXC_INFO`` makes
the caught exception the handled one (pushing the previous one), ``POP_EXCEPT`` restores it.

Capture models these on the exceptions it knows exactly (made during the call, or raised by an
operation it folded): their chain attributes live in the value's ``attrs``. At the compiled
function's entry the handled exception is the caller's; capture relies on it being None only
under a guard (``sys.exc_info()[1] is None``). A traceback is never modelled: reading one of a
raised exception breaks.
"""
from __future__ import annotations

import sys
from typing import Any

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue

EXCEPTION_STATE = break_kind(
    "exception-state",
    "the code reads or changes exception state capture cannot follow exactly (a traceback, the chain "
    "of an exception it did not make, the exception the caller is handling)",
    "the construct runs in Python; keep traceback inspection out of the compiled function")

CHAIN_ATTRS = ("__context__", "__cause__", "__suppress_context__")
_DEFAULTS = {"__context__": None, "__cause__": None, "__suppress_context__": False}


class CallerHandled(Value):
    """The exception the caller of the compiled function is handling: unknown at capture."""

    def describe(self):
        return "the exception the caller is handling"

    def reconstruct(self, cg):
        # the transformed code runs outside any handler of its own: what it sees is the caller's
        return f"{cg.const(sys.exc_info)}()[1]"


CALLER_HANDLED = CallerHandled()


class CallerContext(Value):
    """``__context__`` of an exception raised while only the caller's exception (unknown) was handled.

    Read during capture, it is the previous context under a guard that the caller handles nothing
    (a raised exception is never remade: its traceback cannot be)."""

    def __init__(self, previous: Value):
        self.previous = previous

    def describe(self):
        return "the exception the caller is handling"

    def resolve(self, tx) -> Value:
        caller_handles(tx)
        tx.guards.no_handled_exception()
        return self.previous

    def reconstruct(self, cg):
        raise Unsupported("the context of a raised exception is live at a graph break", kind=EXCEPTION_STATE)


def models_chain(value: Value) -> bool:
    """Whether the chain attributes of ``value`` are modelled (an exception capture knows exactly)."""
    return isinstance(getattr(value, "attrs", None), dict) and isinstance(_sample(value), BaseException)


def _sample(value: Value) -> Any:
    return getattr(value, "sample", None) if hasattr(value, "sample") else getattr(value, "exc", None)


def handled(tx) -> Value:
    """The handled exception now (None as a constant when there is none). At the compiled function's
    level it is the caller's: assumed None under a guard that fails when the caller handles one."""
    current = tx.handled_exc
    if current is CALLER_HANDLED:
        caller_handles(tx)
        tx.guards.no_handled_exception()
        return ConstantValue(None)
    return current


def caller_handles(tx) -> None:
    """Break when the caller is handling an exception: capture runs in the call it compiles for,
    whose entry must pass its own guards (the caller's exception is not modelled). Read when the
    capture began (``Translator``): capture's own handlers run while it interprets user ones."""
    if tx.caller_handles_exception:
        raise Unsupported("the function is called while an exception is being handled, and reads or "
                          "chains to it", kind=EXCEPTION_STATE)


def _is_none(value: Value) -> bool:
    return value.is_constant() and value.as_python_constant() is None


def get_chain_attr(tx, value: Value, name: str) -> Value:
    """``exc.__context__``/``__cause__``/``__suppress_context__`` as the call set them."""
    if name not in value.attrs:
        return ConstantValue(_DEFAULTS[name])
    attr = value.attrs[name]
    return attr.resolve(tx) if isinstance(attr, CallerContext) else attr


def real_of(value: Value) -> Any:
    """The real object standing for ``value`` in the modelled chain (a sample or a constant)."""
    if value.is_constant():
        return value.as_python_constant()
    if models_chain(value):
        return _sample(value)
    raise Unsupported(f"exception chain through {value.describe()}", kind=EXCEPTION_STATE)


def set_chain_attr(tx, value: Value, name: str, new: Value) -> None:
    """``exc.name = new``: Python's own setter runs on the sample (its TypeError is Python's); a
    ``__cause__`` store also sets ``__suppress_context__``, as ``BaseException`` does."""
    sample = _sample(value)
    try:
        setattr(sample, name, real_of(new))
    except (TypeError, AttributeError) as exc:
        raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")
    value.attrs[name] = ConstantValue(getattr(sample, name)) if name == "__suppress_context__" else new
    if name == "__cause__":
        value.attrs["__suppress_context__"] = ConstantValue(True)


def check_raisable(value: Value) -> None:
    """An exception raised in capture must be one it models: raising an object from outside the
    call (an argument, a global) changes it (its ``__traceback__``, ``__context__``): Python raises it."""
    if not models_chain(value):
        raise Unsupported(f"raising {value.describe()}: Python sets its __traceback__ and __context__",
                          kind=EXCEPTION_STATE)


def chain(tx, value: Value) -> None:
    """What ``_PyErr_SetObject`` does as ``value`` is raised: with an exception being handled
    (other than ``value`` itself), remove ``value`` from that one's context chain, then make it
    ``value.__context__``."""
    check_raisable(value)
    if tx.handled_exc is CALLER_HANDLED:
        # only the caller's exception is handled: it becomes the context if there is one (never
        # ``value``, made in this call); decided when the context is read or the exception remade
        previous = value.attrs.get("__context__", ConstantValue(None))
        if isinstance(previous, CallerContext):
            previous = previous.previous
        value.attrs["__context__"] = CallerContext(previous)
        return
    current = handled(tx)
    if _is_none(current) or current is value:
        return
    if not models_chain(current):
        raise Unsupported(f"{value.describe()} raised while handling {current.describe()}: Python sets its "
                          "__context__", kind=EXCEPTION_STATE)
    seen = {id(current)}
    o = current
    while True:
        context = get_chain_attr(tx, o, "__context__")
        if _is_none(context):
            break
        if context is value:
            set_chain_attr(tx, o, "__context__", ConstantValue(None))
            break
        if id(context) in seen:  # a cycle already there (CPython stops the same way)
            break
        if not models_chain(context):
            raise Unsupported(f"exception chain through {context.describe()}", kind=EXCEPTION_STATE)
        seen.add(id(context))
        o = context
    set_chain_attr(tx, value, "__context__", current)


def _exc_info(tx, *args, **kwargs):
    if args or kwargs:
        return NotImplemented
    from autograph.capture.families.containers import TupleValue
    current = handled(tx)
    if _is_none(current):
        return TupleValue([ConstantValue(None)] * 3)
    if not models_chain(current):
        raise Unsupported(f"sys.exc_info() while handling {current.describe()}", kind=EXCEPTION_STATE)
    from autograph.capture.families.with_exits import TracebackValue  # the opaque one __exit__ receives
    return TupleValue([tx.wrap(type(_sample(current)), None, trusted=True), current, TracebackValue(current)])


def _exception(tx, *args, **kwargs):
    if args or kwargs:
        return NotImplemented
    current = handled(tx)
    if not (_is_none(current) or models_chain(current)):
        raise Unsupported(f"sys.exception() while handling {current.describe()}", kind=EXCEPTION_STATE)
    return current


def install() -> None:
    """``sys.exc_info()`` and ``sys.exception()`` answer from the modelled handled exception."""
    from autograph.capture.core.registry import register_builtin
    register_builtin(sys.exc_info, _exc_info)
    if hasattr(sys, "exception"):
        register_builtin(sys.exception, _exception)
