"""``torch.autograd.profiler.record_function(name)`` inside captured code: a no-op context.

A profiler range only labels what runs inside it for a profiler; it changes no value. TorchDynamo
treats it as ``contextlib.nullcontext`` whose ``__enter__`` returns the object itself
(``ProfilerContextVariable``), so the range is simply absent from compiled code. The same here:
``with record_function(...)`` (the optimizer's ``step``/``zero_grad`` profiling wrappers) inlines
with no break. The object is never made for real, so it cannot cross a graph break: its ``__exit__``
slot is not rebuilt and a break inside the block moves to the ``with`` statement (Python runs it).
"""
from __future__ import annotations

import inspect

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue

_RECORD_FUNCTION = torch.autograd.profiler.record_function
_SIGNATURE = inspect.signature(_RECORD_FUNCTION.__init__)


class ProfilerRangeValue(Value):
    """A ``record_function`` made during the call: entering and leaving it do nothing."""

    def __init__(self, name: Value):
        self.name = name

    def describe(self) -> str:
        return "torch.autograd.profiler.record_function object"

    def python_type(self) -> type:
        return _RECORD_FUNCTION

    def getattr(self, tx, name: str) -> Value:
        if name in ("__enter__", "__exit__"):
            return _RangeMethod(self, name)
        raise Unsupported(f"attribute `.{name}` of a record_function made during the call",
                          kind="unsupported-operation")

    def call_method(self, tx, name: str, args, kwargs) -> Value:
        return self.getattr(tx, name).call(tx, args, kwargs)


class _RangeMethod(Value):
    """``__enter__`` (returns the range, as torch's does) or ``__exit__`` (returns None: never
    swallows an exception) of a :class:`ProfilerRangeValue`."""

    def __init__(self, owner: ProfilerRangeValue, name: str):
        self.owner = owner
        self.name = name

    def describe(self) -> str:
        return f"record_function.{self.name}"

    def call(self, tx, args, kwargs) -> Value:
        if self.name == "__enter__":
            if args or kwargs:
                raise Unsupported("record_function.__enter__ with arguments", kind="unsupported-call")
            return self.owner
        if len(args) != 3 or kwargs:
            raise Unsupported("record_function.__exit__ with other than three arguments", kind="unsupported-call")
        return ConstantValue(None)

    def exit_may_swallow(self) -> bool:
        return False  # torch's __exit__ returns None


def _construct(tx, cls, args, kwargs):
    if cls is not _RECORD_FUNCTION:
        return NotImplemented
    try:
        bound = _SIGNATURE.bind(None, *args, **kwargs)
    except TypeError:
        return NotImplemented  # Python's own error, raised where Python raises it
    value = ProfilerRangeValue(bound.arguments["name"])
    value.created_step = tx.step  # live at a break: the break moves here, Python makes the real one
    return value


def install() -> None:
    registry.add_class_call_hook(_construct)
