"""Generators made during capture: run lazily, one ``yield`` at a time, in their own frame."""
from __future__ import annotations

import types

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.handlers import MAX_INLINE_DEPTH, handler
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.exception_state import EXCEPTION_STATE
from autograph.capture.families.exception_values import ExceptionValue
from autograph.capture.families.containers import ListIteratorValue
from autograph.capture.core.keyword_args import keyword_text

LIVE_GENERATOR = break_kind(
    "live-generator", "a generator that already yielded is still in use after a graph break: its paused "
    "frame exists only inside the capture", "consume the generator before the break, or make the break "
    "happen before the generator starts")
SUSPENDED_FINALLY = break_kind(
    "suspended-generator-cleanup", "a generator paused inside a try/finally, except or with block is "
    "closed by Python when its last reference dies, which runs that block: capture closes it at the "
    "function's return only when it is the one such generator, dies there and closes cleanly",
    "exhaust or close() the generator before returning")


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
        self.running = False  # its frame is executing (a generator cannot resume itself)
        self.return_value: Value = ConstantValue(None)
        # paused inside an except body: the exception it handles, and the caller's one then
        self.handled_exc: Value | None = None
        self.outer_at_pause: Value | None = None
        # the call that made it: an unstarted generator is rebuilt by making the same call
        self.call = (fn, list(args or []), dict(kwargs or {}))
        self.started_step: int | None = None  # the root step that first ran its code
        self.closed_at_return = False  # closed by the capture as its last reference dies

    def describe(self):
        return f"generator {self.frame.code.co_qualname}"

    def python_type(self):
        return types.GeneratorType

    def thrown_may_be_caught(self) -> bool:
        """Whether an exception thrown in at the paused ``yield`` may be caught by the generator
        (``@contextmanager``'s exit swallows it then)."""
        paused = self.frame.current
        if not self.started or self.done or paused is None:
            return True
        return self.frame.may_swallow(paused.index)

    def _advance(self, tx) -> Value | None:
        return self.resume(tx, ConstantValue(None))  # next() sends None

    def resume(self, tx, sent: Value) -> Value | None:
        """Run on from the paused ``yield`` (which evaluates to ``sent``) to the next one: its
        value, or None when the generator ends (its return value in ``return_value``)."""
        if self.done:
            return None
        if self.started:
            self.frame.push(sent)  # the value of the `yield` expression
        else:
            self.note_start(tx)
        self.started = True
        return self.run(tx)

    def note_start(self, tx) -> None:
        """Its code runs for the first time at this root step: until then the generator can be
        rebuilt unstarted, so a break that finds it live moves here (Python starts it)."""
        self.started_step = tx.step
        if self.rebuildable_unstarted():
            self.created_step = tx.step

    def rebuildable_unstarted(self) -> bool:
        return self.call[0] is not None

    def send_value(self, tx, sent: Value) -> Value | None:
        """``gen.send(sent)``: as ``resume``, after Python's check of a just-started generator."""
        if not self.started and not (sent.is_constant() and sent.as_python_constant() is None):
            err = TypeError("can't send non-None value to a just-started generator")
            raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
        return self.resume(tx, sent)

    def run(self, tx) -> Value | None:
        """Run the frame from where it is to its next ``yield`` or its end."""
        self.check_not_running()
        if tx.depth >= MAX_INLINE_DEPTH:
            raise Unsupported("generator nested too deeply", kind="call-depth")
        tx.depth += 1
        self.running = True
        # a generator has its own handled exception (CPython swaps exc_info): none of its own,
        # and the caller's is what sys.exc_info() and chaining see
        outer = tx.handled_exc
        if self.handled_exc is not None:
            if outer is not self.outer_at_pause:  # its POP_EXCEPT would restore the caller's old one
                self.running = False
                tx.depth -= 1
                raise Unsupported(f"{self.describe()} resumed inside an except body while the caller handles "
                                  "another exception", kind=EXCEPTION_STATE)
            tx.handled_exc = self.handled_exc
        try:
            out = tx.run_frame(self.frame)
        except Unsupported as err:
            if err.exc is None:
                raise
            self.done = True  # an exception left the generator's frame: it is finished, as in Python
            raise _escaped(err) from None
        finally:
            self.handled_exc = tx.handled_exc if tx.handled_exc is not outer else None
            self.outer_at_pause = outer
            tx.handled_exc = outer
            tx.depth -= 1
            self.running = False
        if isinstance(out, Yielded):
            return out.value
        self.done = True
        self.return_value = out.value  # what `yield from` this generator evaluates to
        return None

    def check_not_running(self) -> None:
        if self.running:
            err = ValueError("generator already executing")
            raise Unsupported(f"ValueError: {err}", generic=True, exc=err, kind="python-exception")

    def getattr(self, tx, name):
        if name in ("send", "throw", "close"):
            from autograph.capture.families.generator_protocol import GeneratorMethodValue
            return GeneratorMethodValue(self, name)
        return super().getattr(tx, name)

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
        if self.closed_at_return:  # it outlives the call after all: Python does not close it then
            raise Unsupported(f"generator {self.frame.code.co_qualname}, closed when the function returns, is "
                              "kept by what the function leaves behind", kind=SUSPENDED_FINALLY)
        if not self.started:  # no code of it ran: calling the generator function again is the same
            fn, args, kwargs = self.call
            if fn is not None:
                parts = [cg.reconstruct(a) for a in args] + [keyword_text(k, cg.reconstruct(v)) for k, v in kwargs.items()]
                return cg.shared(self, f"{cg.reconstruct(fn)}({', '.join(parts)})")
        if not self.done:
            raise Unsupported(f"a generator ({self.frame.code.co_qualname}) that has started running is live "
                              "at a graph break; its suspended frame cannot be rebuilt", kind=LIVE_GENERATOR)
        return super().reconstruct(cg)


def _escaped(err: Unsupported) -> Unsupported:
    """The exception a caller of ``next()`` sees when ``err`` leaves a generator's frame:
    itself, except that a StopIteration becomes ``RuntimeError("generator raised
    StopIteration")`` chained to it (PEP 479), so it cannot pass for the generator's end."""
    if not isinstance(err.exc, StopIteration):
        return err
    runtime = RuntimeError("generator raised StopIteration")
    runtime.__cause__ = runtime.__context__ = err.exc
    converted = Unsupported(f"RuntimeError: generator raised StopIteration ({err.reason})", generic=True,
                            exc=runtime, kind="python-exception")
    converted.user_stack = list(err.user_stack)
    stop = getattr(err, "exc_value", None) or ExceptionValue(err.exc)
    value = ExceptionValue(runtime)
    value.attrs.update({"__context__": stop, "__cause__": stop, "__suppress_context__": ConstantValue(True)})
    converted.exc_value, converted.chained = value, True  # chained by hand, as _PyErr_FormatFromCause does
    return converted


def generator_frame(tx, fv: Value, args, kwargs):
    """The frame of a new generator of ``fv`` called with these arguments, before its first
    instruction runs."""
    frame = tx.inline_function(fv, args, kwargs, frame_only=True)
    for i, inst in enumerate(frame.instructions):
        if inst.opname == "RETURN_GENERATOR":
            # what CPython does on the first next(): continue after it with None sent
            frame.ip = i + 1
            frame.push(ConstantValue(None))
            break
    return frame


def make_generator(tx, fv: Value, args, kwargs) -> Value:
    frame = generator_frame(tx, fv, args, kwargs)
    gen = GeneratorValue(tx, frame, fv, args, kwargs)
    gen.created_step = tx.step
    tx.generators_made.append(gen)
    return gen


def _paused_in_cleanup_block(gen: GeneratorValue) -> bool:
    """Whether the generator is paused where closing it runs user code: a ``finally``,
    ``except`` or ``with`` block covers its ``yield`` (a handler block starting PUSH_EXC_INFO on
    the way out; the implicit StopIteration->RuntimeError handler of 3.12 runs no user code)."""
    inst = gen.frame.current
    from autograph.capture.families.generator_protocol import _has_own, _subiterator
    sub = _subiterator(gen)
    if sub is not None and not hasattr(sub, "send_value") and _has_own(sub, "close"):
        return True  # closing it calls the subiterator's own close() (a subgenerator is checked itself)
    entry = inst.exn if inst is not None else None
    seen: set[int] = set()
    while entry is not None and entry.target.index not in seen:
        seen.add(entry.target.index)
        if entry.target.opname == "PUSH_EXC_INFO" and not _clauses_skip_generator_exit(gen, entry.target):
            return True
        entry = entry.target.exn
    return False


def _clauses_skip_generator_exit(gen: GeneratorValue, handler) -> bool:
    """Whether a handler block is only ``except C:`` clauses none of which catches the
    ``GeneratorExit`` closing throws in (``except IndexError:`` in ``Sequence.__iter__``): then
    closing runs no user code here. Any other shape (``finally``, ``with``, a bare ``except``,
    a class not read from globals/builtins) counts as running code."""
    code = gen.frame.instructions
    i = handler.index + 1
    while True:
        load, check, jump = (code[i:i + 3] + [None, None, None])[:3]
        if load is None or load.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or check is None \
                or check.opname != "CHECK_EXC_MATCH" or jump is None or not jump.opname.startswith("POP_JUMP") \
                or "IF_FALSE" not in jump.opname or jump.target is None:
            return False
        name = load.argval if isinstance(load.argval, str) else next(
            (v for v in (load.argval or ()) if isinstance(v, str)), None)
        scope = gen.frame.fn_globals
        builtins_ = scope.get("__builtins__", {})
        builtins_ = builtins_ if isinstance(builtins_, dict) else vars(builtins_)
        cls = scope[name] if name in scope else builtins_.get(name)
        if not isinstance(cls, type) or issubclass(GeneratorExit, cls):
            return False
        nxt = jump.target
        if nxt.opname == "RERAISE":  # no clause matched: the exception goes on outwards
            return True
        i = nxt.index


def _no_suspended_cleanup(tx) -> None:
    """At the compiled function's return, a generator made by this call and paused in a cleanup
    block is finalised by Python (its ``finally`` runs) when its last reference dies. One such
    generator is closed by the capture right there, after the return value (``reconstruct``
    refuses it if anything the call leaves behind keeps it); otherwise, and when closing it is not
    known exactly, the generator's life from where it first ran is left to Python."""
    pending = [gen for gen in tx.generators_made
               if gen.started and not gen.done and _paused_in_cleanup_block(gen)]
    if not pending:
        return
    gen = pending[0]
    if len(pending) == 1 and not _refers_to_itself(gen):  # several: their order of death is not modelled
        from autograph.capture.families.generator_protocol import close
        try:
            close(tx, gen)
        except Unsupported:  # Python would print an unraisable error, or capture cannot tell
            pass
        else:
            gen.closed_at_return = True
            return
    err = Unsupported(f"generator {gen.frame.code.co_qualname} is paused inside a finally/except/with "
                      "block when the function returns", kind=SUSPENDED_FINALLY)
    err.retry_step = gen.created_step  # where it first ran (rebuilt unstarted there)
    raise err


def _none_left_in_cleanup(tx) -> None:
    """At every end of the capture (after ``_no_suspended_cleanup`` at a return): a generator made
    by this call and still paused in a cleanup block must exist for real, so that Python closes it
    when it dies -- at a break it may not be live in the resume function and would never be made."""
    for gen in tx.generators_made:
        if gen.started and not gen.done and _paused_in_cleanup_block(gen):
            err = Unsupported(f"generator {gen.frame.code.co_qualname} is paused inside a finally/except/with "
                              "block at the end of the graph", kind=SUSPENDED_FINALLY)
            err.retry_step = gen.created_step
            raise err


def _refers_to_itself(gen: GeneratorValue) -> bool:
    """Whether the generator's own frame holds it (``me = yield`` sent itself): a cycle, freed by
    the garbage collector at some later time, not when the function returns."""
    held = [*gen.frame.locals.values(), *gen.frame.stack, *gen.frame.cells.values()]
    for value in held:
        items = getattr(value, "items", None)
        if value is gen or isinstance(items, (list, tuple)) and any(item is gen for item in items):
            return True
    return False


def _yield_value(tx, frame, inst):
    return Yielded(frame.pop())


def install() -> None:
    handler("YIELD_VALUE")(_yield_value)
    registry.set_generator_factory(make_generator)
    registry.add_root_return_check(_no_suspended_cleanup)
    registry.add_capture_end_check(_none_left_in_cleanup)
