"""Exception objects capture holds: ``ExceptionValue`` (a real exception a folded call raised),
and the two helpers the interpreter and the generator and ``with`` families share to catch one
(``exception_of``) and to jump to a handler with it on the stack (``enter_handler``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from autograph.capture.core.breaks import Unsupported
from autograph.capture.families import exception_state
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue

if TYPE_CHECKING:
    from autograph.bytecode.instructions import Instruction
    from autograph.capture.engine.interpreter import Frame


class ExceptionValue(Value):
    """A real exception object raised by a call capture folded."""

    def __init__(self, exc: BaseException):
        self.exc = exc
        # the chain attributes the call set (families/exception_state.py); the real object's
        # are capture's own (it was raised inside capture)
        self.attrs: dict[str, Value] = {}

    def describe(self):
        return f"{type(self.exc).__name__} exception"

    def python_type(self):
        return type(self.exc)

    def real_value(self):
        return self.exc

    def getattr(self, tx, name):
        """``e.args`` when every argument is a plain constant: Python builds the same tuple on
        every call (a tensor or object argument would be capture's sample)."""
        if name == "args" and all(type(a) in (str, int, float, bool, bytes, type(None)) for a in self.exc.args):
            return ConstantValue(self.exc.args)
        if name == "with_traceback":
            from autograph.capture.families.with_exits import WithTracebackMethod
            return WithTracebackMethod(self)
        if name in exception_state.CHAIN_ATTRS:
            return exception_state.get_chain_attr(tx, self, name)
        return super().getattr(tx, name)

    def setattr(self, tx, name, value):
        from autograph.capture.families.with_exits import is_own_traceback
        if name == "__traceback__" and is_own_traceback(self, value):
            return  # puts back the traceback it has (contextlib's __exit__)
        if name in exception_state.CHAIN_ATTRS:
            return exception_state.set_chain_attr(tx, self, name, value)
        return super().setattr(tx, name, value)

    def reconstruct(self, cg):
        # the exception object Python raised here exists only in that call: capture's copy must
        # not be handed to every later call
        raise Unsupported(f"a caught {type(self.exc).__name__} is live at a graph break", kind="cannot-rebuild")


def enter_handler(frame: "Frame", inst: Instruction, exc: BaseException, value: Value | None = None,
                   step: int | None = None) -> None:
    """Jump to ``inst``'s handler with the exception on the stack. An exception Python raised
    (``ExceptionValue``) remembers the root ``step`` that raised it: live at a break, it cannot be
    rebuilt, and the break moves there (the raising operation and its handler run in Python)."""
    entry = inst.exn
    del frame.stack[entry.depth:]
    if entry.lasti:
        frame.push(ConstantValue(inst.offset))
    if value is None:
        value = ExceptionValue(exc)
        if step is not None:
            value.created_step = step
    frame.push(value)
    frame.jump(entry.target)


def exception_of(value: Value) -> BaseException | None:
    """The exception object (capture's sample) a value stands for, if known."""
    if isinstance(value, ExceptionValue):
        return value.exc
    try:
        real = value.real_value()
    except Unsupported:
        return None
    return real if isinstance(real, BaseException) else None
