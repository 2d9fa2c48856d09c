"""An exception leaving a ``with`` block during capture: ``WITH_EXCEPT_START``.

CPython's exception table sends an exception raised inside a ``with`` block to a handler that
calls the block's ``__exit__(type(exc), exc, exc.__traceback__)`` and re-raises unless the result
is true. When capture knows the exception exactly (a folded operation raised it, a user ``raise``,
an inlined callee's), the exit is called symbolically like any other call: a Python ``__exit__``
(``contextlib.suppress``, unittest's ``assertRaises``, ``@contextmanager``'s generator, a user
class) is interpreted, and the result decides, as in CPython, whether the block swallows it.

The traceback argument is :class:`TracebackValue`: the traceback of *that* exception as Python
would have it. No real one exists in the compiled call (the exception is never raised there when
the block swallows it), so only the uses that do not look into it are modelled: passing it on
(``gen.throw(typ, exc, tb)``, ``exc.with_traceback(tb)``), ``tb is None``, and
``traceback.clear_frames(tb)`` (clears the frames between the raise and the block -- frames the
compiled call does not have). Anything else (``tb.tb_frame``, ``tb.tb_lineno``, formatting it)
is a graph break of kind ``traceback``: the raising operation and the block's exit run in Python.
"""
from __future__ import annotations

import traceback
import types

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.handlers import handler
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.exception_values import exception_of

TRACEBACK = break_kind(
    "traceback", "code reads into the traceback of an exception raised during capture (its frames, "
    "line numbers, or formats it); capture has no real traceback to show it",
    "the raising operation and its handler run in Python; avoid inspecting tracebacks in compiled code")


class TracebackValue(Value):
    """``exc.__traceback__`` of an exception raised during capture, as ``__exit__`` receives it."""

    def __init__(self, exc_value: Value):
        self.exc_value = exc_value

    def describe(self):
        return f"traceback of {self.exc_value.describe()}"

    def python_type(self):
        return types.TracebackType

    def getattr(self, tx, name):
        raise Unsupported(f"`.{name}` of the {self.describe()}", kind=TRACEBACK)

    def truth(self, tx):
        return True  # a traceback object: Python's WITH_EXCEPT_START never passes None for a raised one

    def reconstruct(self, cg):
        raise Unsupported(f"the {self.describe()} is live at a graph break", kind=TRACEBACK)


def _with_except_start(tx, frame, inst):
    """Stack ``[exit, lasti, prev_exc, exc]`` -> ``[..., exc, exit(type(exc), exc, tb)]``."""
    value = frame.stack[-1]
    exc = exception_of(value)
    if exc is None:
        raise Unsupported(f"an exception leaving a `with` block: {value.describe()} is not known exactly",
                          kind="unsupported-operation")
    exit_fn = frame.stack[-4]
    cls = tx.wrap(type(exc), None, trusted=True)
    frame.push(tx.call(exit_fn, [cls, value, TracebackValue(value)], {}))


def _clear_frames(tx, tb, *rest, **kwargs):
    """``traceback.clear_frames(tb)`` of an exception raised during capture (or None): nothing to
    clear in the compiled call, whose exception has no frames of the inlined callees."""
    if rest or kwargs:
        return NotImplemented
    if isinstance(tb, TracebackValue) or (tb.is_constant() and tb.as_python_constant() is None):
        return ConstantValue(None)
    return NotImplemented


def with_traceback(tx, exc_value: Value, args: list[Value], kwargs: dict) -> Value | None:
    """``exc.with_traceback(tb)`` with ``tb`` None or the exception's own traceback: returns the
    exception itself. The compiled call's exception (rebuilt, or never raised) has none to drop, and
    a modelled ``__traceback__`` read breaks anyway. None: not this case (the caller decides)."""
    if kwargs or len(args) != 1:
        return None
    tb = args[0]
    if isinstance(tb, TracebackValue) and tb.exc_value is exc_value:
        return exc_value
    if tb.is_constant() and tb.as_python_constant() is None:
        try:
            sample = exc_value.real_value()
        except Unsupported:
            return None
        if isinstance(sample, BaseException):
            sample.with_traceback(None)  # capture's own sample: keeps it as the call would have it
            return exc_value
    return None


def is_own_traceback(exc_value: Value, tb: Value) -> bool:
    """Whether ``tb`` is the traceback ``exc_value`` already has (``exc.__traceback__ = tb``)."""
    return isinstance(tb, TracebackValue) and tb.exc_value is exc_value


def own_traceback_triple(tx, typ: Value, value: Value, tb: Value) -> bool:
    """``(type(exc), exc, exc.__traceback__)`` as ``__exit__`` received them: ``gen.throw(typ, exc,
    tb)`` of such a triple is ``gen.throw(exc)``."""
    exc = exception_of(value)
    if exc is None or not is_own_traceback(value, tb):
        return False
    try:
        cls = typ.real_value()
    except Unsupported:
        return False
    return cls is type(exc)


class WithTracebackMethod(Value):
    """``exc.with_traceback`` of an exception capture models, waiting to be called."""

    def __init__(self, exc_value: Value):
        self.exc_value = exc_value

    def describe(self):
        return f"method .with_traceback() of {self.exc_value.describe()}"

    def call(self, tx, args, kwargs):
        out = with_traceback(tx, self.exc_value, args, kwargs)
        if out is None:
            raise Unsupported(f"{self.describe()} with " + ", ".join(a.describe() for a in args),
                              kind=TRACEBACK)
        return out

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.exc_value)}.with_traceback"


def install() -> None:
    handler("WITH_EXCEPT_START", min_version=(3, 11), max_version=(3, 13))(_with_except_start)
    registry.register_builtin(traceback.clear_frames, _clear_frames)
