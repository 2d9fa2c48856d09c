"""What capture's generated code tells the runtime about frames (``runtime/frames.py`` reads it).

An entry does not call its resume function: it returns ``TailCall(resume, *args)`` and the shim
makes the call once the entry's frame is gone, so a user's function is one frame however many
graph breaks it has. The code objects capture makes are marked here: an entry's frame stands for
the user's function, and a graph's or a user site's frame folds into the entry's frame it runs
for when a traceback is cleaned.
"""
from __future__ import annotations

import types
import weakref
from typing import Any

from autograph.guards import extension as _extension


class _PyTailCall:
    """Pure-Python twin of ``autograph._native.TailCall`` (used when the extension is missing)."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: Any, *args: Any):
        self.fn, self.args = fn, args


_native = _extension.load()
TailCall: Any = getattr(_native, "TailCall", None) or _PyTailCall

# code objects autograph made that stand for a user's frame (weak: they die with their functions)
_ENTRY_CODES: "weakref.WeakSet[types.CodeType]" = weakref.WeakSet()   # transformed entries, resume code
_FOLDED_CODES: "weakref.WeakSet[types.CodeType]" = weakref.WeakSet()  # graph code, user sites


def mark_entry(code: types.CodeType) -> None:
    """``code`` is a transformed entry's, or a resume function's run as it is: its frame is the
    user's function's frame."""
    _ENTRY_CODES.add(code)


def mark_folded(code: types.CodeType) -> None:
    """``code`` runs for the entry that calls it, at a user's line of the same function (a graph's
    Python code, a user site): in a traceback it folds into that entry's frame."""
    _FOLDED_CODES.add(code)


def is_entry(code: types.CodeType) -> bool:
    return code in _ENTRY_CODES


def is_folded(code: types.CodeType) -> bool:
    return code in _FOLDED_CODES
