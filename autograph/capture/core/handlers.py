"""The interpreter's opcode handler table, declared below the engine.

Families that model an opcode's object (``with`` blocks, generators) register their handlers
here from their ``install()``, so they need not import the interpreter; the interpreter
dispatches through the same table.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

VERSION = sys.version_info[:2]
# how deep calls are inlined before the call runs in Python (a graph break)
MAX_INLINE_DEPTH = 24

# ``handler(translator, frame, instruction)``
Handler = Callable[[Any, Any, Any], Any]
HANDLERS: dict[str, Handler] = {}


def handler(*opnames: str, min_version: tuple[int, int] = (3, 0), max_version: tuple[int, int] = (9, 99)):
    """Register a handler for ``opnames`` when the running Python is in the version range."""
    def register(fn: Handler) -> Handler:
        if min_version <= VERSION <= max_version:
            for name in opnames:
                HANDLERS[name] = fn
        return fn
    return register
