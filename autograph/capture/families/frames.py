"""Calls that inspect the interpreter's call frames: the whole function runs as plain Python.

Compiled code runs in frames of its own (the transformed function, resume functions, generated
line numbers and locals), so a function that asks for its frames (``sys._getframe``,
``inspect.stack``, ``traceback.extract_stack``, the location ``warnings.warn`` reports) would
see other frames than Python shows it. A graph break does not help: the call would run inside a
transformed frame. Capture stops with a ``frame-inspection`` break, and ``capture.api`` makes
the entry one that runs the original function (see :data:`~autograph.capture.core.breaks.FRAME_INSPECTION`).
"""
from __future__ import annotations

import inspect
import sys
import traceback
import warnings
from typing import Any

from autograph.capture.core.breaks import FRAME_INSPECTION, Unsupported
from autograph.capture.core import registry

# C functions that read their callers' frames, and the Python helpers of the standard library
# built on them (met as opaque calls: capture does not interpret the stdlib's inspect/traceback)
FRAME_INSPECTING: frozenset[Any] = frozenset(f for f in (
    sys._getframe, getattr(sys, "_getframemodulename", None), sys._current_frames, warnings.warn,
    inspect.currentframe, inspect.stack, inspect.trace, traceback.extract_stack, traceback.format_stack,
    traceback.print_stack, traceback.walk_stack) if f is not None)


def refuse_frame_inspection(fn: Any) -> None:
    """Raise the ``frame-inspection`` break when ``fn`` reads its callers' frames."""
    try:
        inspecting = fn in FRAME_INSPECTING
    except TypeError:  # unhashable callables are no such function
        return
    if inspecting:
        module = getattr(fn, "__module__", None)
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
        raise Unsupported(f"{module + '.' if module else ''}{name}() inspects the calling frames",
                          kind=FRAME_INSPECTION)


def _opaque_call_rule(tx, fn, args, kwargs):
    refuse_frame_inspection(fn)
    return NotImplemented


def install() -> None:
    registry.add_opaque_call_rule(_opaque_call_rule)
