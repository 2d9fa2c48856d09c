"""``gen.send(v)``, ``gen.throw(exc)`` and ``gen.close()`` of generators made during capture,
as CPython 3.11 runs them (``genobject.c``).

* ``send`` resumes the paused ``yield`` with ``v`` as its value.
* ``throw`` raises the exception *at* the paused ``yield``: the generator's own ``except`` /
  ``finally`` blocks run (symbolically, through the frame's exception table); paused in a
  ``yield from``, the exception goes to the subgenerator first (an iterator that is not a
  generator gets its own ``throw``/``close`` called, with what ``throw()`` was given).
* ``close`` throws ``GeneratorExit``: a generator that yields again raises
  ``RuntimeError("generator ignored GeneratorExit")``; one that ends returns None.

When the generator ends, ``send``/``throw`` raise ``StopIteration(return value)``; an exception
leaving the generator reaches the caller (a StopIteration as RuntimeError, PEP 479). Anything not
known exactly (a return value that is not a constant)
raises ``Unsupported`` with no exception: a graph break, and Python runs the call.
"""
from __future__ import annotations

from typing import Any

from autograph.capture.core.handlers import VERSION
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.exception_values import enter_handler, exception_of

_PLAIN = (str, int, float, bool, bytes, type(None))


class GeneratorMethodValue(Value):
    """``gen.send`` / ``gen.throw`` / ``gen.close`` of a generator made during capture."""

    def __init__(self, gen: Any, name: str):
        self.gen = gen
        self.name = name

    def describe(self):
        return f"method .{self.name}() of {self.gen.describe()}"

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__"):
            return ConstantValue(self.name if name == "__name__" else f"generator.{self.name}")
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        if kwargs:
            raise Unsupported(f"generator.{self.name}() with keyword arguments", kind="unsupported-call")
        if self.name == "send" and len(args) == 1:
            return _yielded_or_stop(self.gen, self.gen.send_value(tx, args[0]))
        if self.name == "throw" and len(args) == 3:  # throw(type, value, tb), as 3.11's contextlib calls it
            from autograph.capture.families.with_exits import own_traceback_triple
            if own_traceback_triple(tx, *args):
                args = [args[1]]
        if self.name == "throw" and len(args) == 1:
            exc, value = _exception(tx, args[0])
            return _yielded_or_stop(self.gen, throw(tx, self.gen, exc, value, given=[args[0]]))
        if self.name == "close" and not args:
            close(tx, self.gen)
            return ConstantValue(None)
        raise Unsupported(f"generator.{self.name}() with {len(args)} arguments", kind="unsupported-call")

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.gen)}.{self.name}"


def _yielded_or_stop(gen, item: Value | None) -> Value:
    """What ``send``/``throw`` return: the next yielded value, or StopIteration at the end."""
    if item is not None:
        return item
    ret = gen.return_value
    if not ret.is_constant() or type(ret.as_python_constant()) not in _PLAIN:
        raise Unsupported(f"StopIteration carrying {ret.describe()} (the generator's return value)",
                          kind="unsupported-operation")
    value = ret.as_python_constant()
    exc = StopIteration() if value is None else StopIteration(value)
    raise Unsupported("StopIteration: the generator ended", generic=True, exc=exc, kind="python-exception")


def _exception(tx, arg: Value) -> tuple[BaseException, Value | None]:
    """The exception ``throw(arg)`` raises: an instance as it is, a class instantiated anew."""
    try:
        real = arg.real_value()
    except Unsupported:
        real = None
    if isinstance(real, type) and issubclass(real, BaseException):
        from autograph.capture.families import fresh
        if not fresh.constructible(real):
            raise Unsupported(f"throw() of {real.__qualname__}, made by its Python __init__",
                              kind="unsupported-operation")
        value = fresh.construct(tx, real, [], {})
        return value.real_value(), value
    exc = exception_of(arg)
    if exc is None:
        raise Unsupported(f"throw() of {arg.describe()}", kind="unsupported-operation")
    return exc, arg


def _raised(exc: BaseException, value: Value | None, what: str) -> Unsupported:
    err = Unsupported(f"{type(exc).__name__} {what}", generic=True, exc=exc, kind="python-exception")
    err.exc_value = value
    err.chained = True  # throw() restores the exception as it is (PyErr_Restore): no __context__
    return err


def _paused_yield(gen) -> Any:
    return gen.frame.current  # the YIELD_VALUE the frame stopped at


def _subiterator(gen) -> Any | None:
    """The iterator a generator paused in ``yield from`` delegates to (None if not delegating):
    the paused ``YIELD_VALUE`` follows ``SEND``, and the subiterator is on top of the stack."""
    inst = _paused_yield(gen)
    before = gen.frame.instructions[inst.index - 1] if inst is not None and inst.index else None
    if before is None or before.opname != "SEND" or not gen.frame.stack:
        return None
    return gen.frame.stack[-1]


def _has_own(sub, method: str) -> bool:
    """Whether Python would call ``sub.<method>`` (a generator of the capture: handled here; a
    builtin iterator has none; anything else: unknown)."""
    if hasattr(sub, "send_value"):
        return True
    try:
        return hasattr(sub.python_type(), method)
    except Unsupported:
        return True


def throw(tx, gen, exc: BaseException, value: Value | None, given: list[Value] | None = None) -> Value | None:
    """Raise ``exc`` at the generator's paused ``yield`` and run on: the next yielded value, or
    None if it ended (an exception leaving it propagates). ``given``: what ``throw()`` was
    called with (a subiterator's own ``throw`` gets it as it is, as CPython passes it on)."""
    gen.check_not_running()
    if gen.done:
        raise _raised(exc, value, "thrown into a finished generator")
    if not gen.started:  # raised before the first instruction: nothing catches it
        gen.started = gen.done = True
        from autograph.capture.families.generators import _escaped
        raise _escaped(_raised(exc, value, "thrown into a generator that had not started"))
    sub = _subiterator(gen)
    if sub is not None:
        if isinstance(exc, GeneratorExit):
            if _has_own(sub, "close"):
                try:
                    _close_sub(tx, gen, sub)
                except Unsupported as err:
                    if err.exc is None:
                        raise
                    exc, value = err.exc, getattr(err, "exc_value", None)
        elif _has_own(sub, "throw"):
            try:
                if hasattr(sub, "send_value"):
                    item = throw(tx, sub, exc, value, given)
                else:  # an iterator with a throw() of its own: called with what throw() got
                    item = _call_sub_method(tx, gen, sub, "throw", given or [value])
            except Unsupported as err:
                if err.exc is None:
                    raise
                if not hasattr(sub, "send_value") and isinstance(err.exc, StopIteration):
                    # the subiterator finished: `yield from` evaluates to the StopIteration's value
                    return _after_yield_from(tx, gen, _stop_value(err))
                exc, value = err.exc, getattr(err, "exc_value", None)  # raised on in this frame
            else:
                if item is not None:
                    return item  # the subiterator yielded: so does this one, still delegating
                return _after_yield_from(tx, gen, sub.return_value)
    inst = _paused_yield(gen)
    if inst.exn is None:  # nothing in the generator catches it: it leaves the frame
        gen.done = True
        from autograph.capture.families.generators import _escaped
        raise _escaped(_raised(exc, value, "thrown into a generator"))
    enter_handler(gen.frame, inst, exc, value, tx.step)
    return gen.run(tx)


def _after_yield_from(tx, gen, result: Value) -> Value | None:
    """The subgenerator ended: ``yield from`` evaluates to its return value; run on."""
    send = gen.frame.instructions[_paused_yield(gen).index - 1]
    if VERSION < (3, 12):
        gen.frame.pop()
    gen.frame.push(result)
    gen.frame.jump(send.target)
    return gen.run(tx)


def _close_sub(tx, gen, sub) -> None:
    if hasattr(sub, "send_value"):
        close(tx, sub)
    else:  # an iterator with a close() of its own (CPython's gen_close_iter); its result is dropped
        _call_sub_method(tx, gen, sub, "close", [])


def _call_sub_method(tx, gen, sub, name: str, args: list[Value]) -> Value:
    """``sub.<name>(*args)`` for a subiterator that is not a generator of the capture, run while
    the delegating generator counts as executing (a call back into it is a ValueError)."""
    method = sub.getattr(tx, name)
    gen.running = True
    try:
        return method.call(tx, list(args), {})
    finally:
        gen.running = False


def _stop_value(err: Unsupported) -> Value:
    """The value a StopIteration carries (``yield from``'s result), when it is a plain constant."""
    stop = err.exc
    if type(stop.value) not in _PLAIN:
        raise Unsupported(f"StopIteration carrying {type(stop.value).__name__}", kind="unsupported-operation")
    return ConstantValue(stop.value)


def close(tx, gen) -> None:
    """``gen.close()``: GeneratorExit thrown in; ignoring it (yielding again) is a RuntimeError."""
    gen.check_not_running()
    if gen.done or not gen.started:
        gen.started = gen.done = True
        return
    from autograph.capture.families import fresh
    value = fresh.construct(tx, GeneratorExit, [], {})
    try:
        item = throw(tx, gen, value.real_value(), value)
    except Unsupported as err:
        if isinstance(err.exc, (GeneratorExit, StopIteration)):
            return
        raise
    if item is not None:
        err = RuntimeError("generator ignored GeneratorExit")
        raise Unsupported(f"RuntimeError: {err}", generic=True, exc=err, kind="python-exception")
