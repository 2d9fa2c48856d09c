"""Generators made during capture: run lazily, one ``yield`` at a time, in their own frame."""
from __future__ import annotations

import types

from autograph.capture.breaks import Unsupported, break_kind
from autograph.capture.values import registry
from autograph.capture.values.base import Value
from autograph.capture.values.constants import ConstantValue
from autograph.capture.values.containers import ListIteratorValue

LIVE_GENERATOR = break_kind(
    "live-generator", "a generator that already yielded is still in use after a graph break: its paused "
    "frame exists only inside the capture", "consume the generator before the break, or make the break "
    "happen before the generator starts")


class Yielded:
    def __init__(self, value: Value):
        self.value = value


class GeneratorValue(ListIteratorValue):
    """A generator made by calling a generator function during capture."""

    def __init__(self, tx, frame, fn: Value | None = None, args: list | None = None, kwargs: dict | None = None):
        super().__init__([], kind="generator")
        self.frame = frame
        self.started = False
        self.done = False
        self.return_value: Value = ConstantValue(None)
        # the call that made it: an unstarted generator is rebuilt by making the same call
        self.call = (fn, list(args or []), dict(kwargs or {}))

    def describe(self):
        return f"generator {self.frame.code.co_qualname}"

    def python_type(self):
        return types.GeneratorType

    def _advance(self, tx) -> Value | None:
        if self.done:
            return None
        if self.started:
            self.frame.push(ConstantValue(None))  # the value of the `yield` expression (next() sends None)
        self.started = True
        from autograph.capture.interpreter import MAX_INLINE_DEPTH  # lazy: the interpreter installs this module
        if tx.depth >= MAX_INLINE_DEPTH:
            raise Unsupported("generator nested too deeply", kind="call-depth")
        tx.depth += 1
        try:
            out = tx.run_frame(self.frame)
        finally:
            tx.depth -= 1
        if isinstance(out, Yielded):
            return out.value
        self.done = True
        self.return_value = out.value  # what `yield from` this generator evaluates to
        return None

    def next(self, tx):
        if self.index < len(self.items):
            return super().next(tx)
        item = self._advance(tx)
        if item is not None:
            self.items.append(item)
            self.index += 1
        return item

    def iter_items(self, tx):
        while self._advance_into_items(tx):
            pass
        return super().iter_items(tx)

    def _advance_into_items(self, tx) -> bool:
        item = self._advance(tx)
        if item is None:
            return False
        self.items.append(item)
        return True

    def length(self, tx):
        raise Unsupported("TypeError: object of type 'generator' has no len()", generic=True, kind="python-exception")

    def reconstruct(self, cg):
        if not self.started:  # no code of it ran: calling the generator function again is the same
            fn, args, kwargs = self.call
            if fn is not None:
                parts = [cg.reconstruct(a) for a in args] + [f"{k}={cg.reconstruct(v)}" for k, v in kwargs.items()]
                return cg.shared(self, f"{cg.reconstruct(fn)}({', '.join(parts)})")
        if not self.done:
            raise Unsupported(f"a generator ({self.frame.code.co_qualname}) that has started running is live "
                              "at a graph break; its suspended frame cannot be rebuilt", kind=LIVE_GENERATOR)
        return super().reconstruct(cg)


def make_generator(tx, fv: Value, args, kwargs) -> Value:
    frame = tx.inline_function(fv, args, kwargs, frame_only=True)
    for i, inst in enumerate(frame.instructions):
        if inst.opname == "RETURN_GENERATOR":
            # what CPython does on the first next(): continue after it with None sent
            frame.ip = i + 1
            frame.push(ConstantValue(None))
            break
    gen = GeneratorValue(tx, frame, fv, args, kwargs)
    gen.created_step = tx.step
    return gen


def _yield_value(tx, frame, inst):
    return Yielded(frame.pop())


def install() -> None:
    # lazy: the interpreter's import ends by installing the families, this one included
    from autograph.capture import interpreter
    interpreter.handler("YIELD_VALUE")(_yield_value)
    registry.set_generator_factory(make_generator)
