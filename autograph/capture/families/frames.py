"""Calls that inspect the interpreter's call frames: the whole function runs as plain Python.

Compiled code runs in frames that claim the user's function (name, file, line, module; see
``runtime/frames.py``) but hold autograph's locals and code, so a function that asks for its
frames (``sys._getframe``, ``inspect.stack``, ``traceback.extract_stack``, the location
``warnings.warn`` reports) could see other frames than Python shows it. A graph break does not
help: the call would run inside a transformed frame. Capture stops with a ``frame-inspection`` break, and ``capture.api`` makes
the entry one that runs the original function (see :data:`~autograph.capture.core.breaks.FRAME_INSPECTION`).
"""
from __future__ import annotations

import dis
import inspect
import types
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


def reads_callers_namespace(fn: Any, args: list, kwargs: dict) -> bool:
    """Whether the builtin call ``fn(*args, **kwargs)`` reads the calling frame's namespace:
    ``globals()``, ``locals()``, ``vars()``, ``dir()``, or ``eval``/``exec`` given no globals."""
    if fn in (globals, locals, vars, dir):
        return not args and not kwargs
    if fn in (eval, exec):
        return len(args) < 2 and "globals" not in kwargs
    return False


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


# names whose reads are frame reads wherever they come from (``sys._getframe``, a ``from sys
# import _getframe``, ``inspect.currentframe``, ``traceback.extract_stack``)
_FRAME_READING_NAMES = frozenset({"_getframe", "_getframemodulename", "_current_frames", "currentframe",
                                  "extract_stack", "format_stack", "print_stack", "walk_stack"})
# ``inspect.stack()``/``inspect.trace()``: the names alone are common (``torch.stack``)
_INSPECT_FRAME_READERS = frozenset({"stack", "trace"})
# builtins that read the calling frame when called without arguments
_ZERO_ARGUMENT_FRAME_READERS = frozenset({"locals", "vars", "dir", "globals"})
# builtins that run code in the caller's globals and locals unless both are given: read by name,
# whatever their arguments (the entry's globals are autograph's namespace, not the module's)
_NAMESPACE_RUNNERS = frozenset({"eval", "exec"})
_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF", "LOAD_ATTR", "LOAD_METHOD")


def _names_cannot_read_frames(code: types.CodeType) -> bool:
    """Whether no name ``code`` can load is one :func:`static_frame_read` looks for: every name a
    load instruction reads is in the code's name, local, cell or free variable tuples."""
    names = {*code.co_names, *code.co_varnames, *code.co_cellvars, *code.co_freevars}
    return (names.isdisjoint(_FRAME_READING_NAMES) and names.isdisjoint(_ZERO_ARGUMENT_FRAME_READERS)
            and names.isdisjoint(_NAMESPACE_RUNNERS)
            and ("inspect" not in names or names.isdisjoint(_INSPECT_FRAME_READERS)))


def static_frame_read(code: types.CodeType) -> tuple[int | None, str] | None:
    """``(line, what)`` of the first place ``code`` reads its own or its callers' frames, found
    from its instructions alone, else None. Met during capture such a call makes the function
    run as plain Python (:func:`refuse_frame_inspection`); after a graph break it would run in
    a resume function, whose frame is not the function's (its locals, name and callers are
    autograph's) and which can no longer run as the original. Read by name, so a shadowed name
    only costs compiling."""
    if _names_cannot_read_frames(code):  # every capture asks: decode the instructions only when a name fits
        return None
    instructions = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG")]
    lineno = None
    for k, inst in enumerate(instructions):
        lineno = inst.positions.lineno if inst.positions and inst.positions.lineno else lineno
        if inst.opname not in _LOADS or not isinstance(inst.argval, str):
            continue
        name = inst.argval
        if name in _FRAME_READING_NAMES:
            return lineno, f"{name}()"
        before = instructions[k - 1] if k else None
        if name in _INSPECT_FRAME_READERS and inst.opname in ("LOAD_ATTR", "LOAD_METHOD") and before is not None \
                and before.opname in _LOADS and before.argval == "inspect":
            return lineno, f"inspect.{name}()"
        if name in _NAMESPACE_RUNNERS and inst.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            return lineno, f"{name}()"
        if name in _ZERO_ARGUMENT_FRAME_READERS and inst.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            after = instructions[k + 1] if k + 1 < len(instructions) else None
            if after is not None and after.opname in ("PRECALL", "CALL") and after.arg == 0:
                return lineno, f"{name}()"
    return None


def _opaque_call_rule(tx, fn, args, kwargs):
    refuse_frame_inspection(fn)
    return NotImplemented


def install() -> None:
    registry.add_opaque_call_rule(_opaque_call_rule)
