"""Generators from outside the capture (an argument, or one a resume function receives) that
have not started yet.

No code of such a generator has run: its frame holds only its arguments (``gi_frame.f_locals``).
Capture runs it as a generator made in the call (``generators.GeneratorValue``), from those
arguments read through the generator's source, under a guard that it is still unstarted and runs
the same code with the same globals. CPython cannot put a real generator into a paused state
from outside, so what the capture may leave it in is limited to what Python can reproduce:

* never started: it is the same object, untouched;
* finished (exhausted, closed, or an exception left it): the real one is closed after the graph
  (a replayed effect; closing an unstarted generator runs none of its code), so later ``next()``
  raises ``StopIteration`` as in Python;
* paused at a ``yield`` when the capture ends (a return or a break): the break moves to the root
  step that first ran its code, where Python makes that call on the real generator.
"""
from __future__ import annotations

import inspect
import types

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.families import side_effects
from autograph.capture.families.functions import UserFunctionValue
from autograph.capture.families.generators import LIVE_GENERATOR, GeneratorValue, generator_frame
from autograph.guards.sources import AttrSource, ItemSource, Source

# id(generator) -> (its value, the first source it was reached through)
OUTSIDE_GENERATORS = registry.state_slot("outside_generators", dict, __name__)

# (a `types.coroutine` generator is awaited, not iterated: left to Python)
_UNSUPPORTED_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_ITERABLE_COROUTINE


class _Real(Value):
    def __init__(self, source: Source):
        self.source = source


def close_generator(gen: types.GeneratorType) -> None:
    """Finish a generator whose whole run the capture modelled (it never started for real)."""
    gen.close()


class OutsideGeneratorValue(GeneratorValue):
    """An unstarted generator reached through ``source``, run by the capture from its arguments."""

    def __init__(self, tx, frame, source: Source):
        self._done = False
        self._close_recorded = False
        self._tx = tx
        super().__init__(tx, frame)
        self.source = source

    @property
    def done(self) -> bool:
        return self._done

    @done.setter
    def done(self, value: bool) -> None:
        self._done = value
        if value and not self._close_recorded:  # in program order with the other effects
            self._close_recorded = True
            side_effects.record_call(self._tx, close_generator, [_Real(self.source)], {})

    def describe(self):
        return f"generator {self.frame.code.co_qualname} {self.source.expr}"

    def rebuildable_unstarted(self) -> bool:
        return True  # the real object itself, untouched until it starts

    def reconstruct(self, cg):
        if self.started and not self.done:
            err = Unsupported(f"the generator {self.source.expr} from outside was left paused at a yield",
                              kind=LIVE_GENERATOR)
            err.retry_step = self.started_step
            raise err
        return cg.source_expr(self.source)  # closed first by the replayed effect when finished


def _unstarted(gen: types.GeneratorType) -> bool:
    return inspect.getgeneratorstate(gen) == inspect.GEN_CREATED


def _wrap_generator(tx, gen: types.GeneratorType, source: Source | None) -> Value:
    seen = OUTSIDE_GENERATORS.of(tx)
    if id(gen) in seen:  # reached again (a stack slot and a local): one value
        value, first = seen[id(gen)]
        tx.guards.same_object(first, source)
        return value
    tx.guards.type_(source, gen)
    code = gen.gi_code
    if source is None or not _unstarted(gen) or code.co_freevars or code.co_cellvars \
            or code.co_flags & _UNSUPPORTED_FLAGS:
        from autograph.capture.families.objects import ObjectValue
        return ObjectValue(gen, source)
    fn_globals = gen.gi_frame.f_globals
    # unstarted (inspect.getgeneratorstate's GEN_CREATED: not running, not suspended, a frame)
    # and running the same code with the same globals
    tx.guards.equals(AttrSource(source, "gi_running"), False)
    tx.guards.equals(AttrSource(source, "gi_suspended"), False)
    tx.guards.id_(AttrSource(source, "gi_code"), code)
    tx.guards.id_(AttrSource(AttrSource(source, "gi_frame"), "f_globals"), fn_globals)
    f_locals = gen.gi_frame.f_locals
    local_source = AttrSource(AttrSource(source, "gi_frame"), "f_locals")
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    args = [tx.wrap(f_locals[name], ItemSource(local_source, name)) for name in names[:code.co_argcount]]
    kwargs = {name: tx.wrap(f_locals[name], ItemSource(local_source, name)) for name in names[code.co_argcount:]}
    fn = types.FunctionType(code, fn_globals, code.co_name)
    frame = generator_frame(tx, UserFunctionValue(fn), args, kwargs)
    value = OutsideGeneratorValue(tx, frame, source)
    seen[id(gen)] = (value, source)
    return value


def _none_left_paused(tx) -> None:
    """At the end of the capture (a return or a break) no generator from outside may be paused in
    the model: the real one never ran, so Python makes the call that first ran its code."""
    for value, _ in (OUTSIDE_GENERATORS.peek(tx) or {}).values():
        if isinstance(value, OutsideGeneratorValue) and value.started and not value.done:
            err = Unsupported(f"the generator {value.source.expr} from outside was left paused at a yield",
                              kind=LIVE_GENERATOR)
            err.retry_step = value.started_step
            raise err


def install() -> None:
    registry.register_type_wrapper(types.GeneratorType, _wrap_generator)
    registry.add_capture_end_check(_none_left_paused)
