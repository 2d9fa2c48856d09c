"""Graph-break signalling and records.

``Unsupported`` is raised by any handler or value that cannot be represented in
the graph; the interpreter turns it into a :class:`BreakRecord` at the root
instruction it happened under (a break inside an inlined callee breaks at the
call site in the caller).
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass, field


class Unsupported(Exception):
    """Capture cannot continue here; ``reason`` is in the user's language."""

    def __init__(self, reason: str, *, generic: bool = False, exc: BaseException | None = None):
        super().__init__(reason)
        self.reason = reason
        # the real exception, when capture knows exactly what Python raises here
        self.exc = exc
        # user stack of (filename, lineno, function name), innermost last
        self.user_stack: list[tuple[str, int, str]] = []
        self.generic = generic


class CaptureBug(Exception):
    """An internal inconsistency: the capture of this function is abandoned."""


@dataclass
class BreakRecord:
    reason: str
    filename: str
    lineno: int | None
    source_line: str
    user_stack: list[tuple[str, int, str]] = field(default_factory=list)
    offset: int | None = None

    def __str__(self) -> str:
        return f"{self.reason} ({self.filename}:{self.lineno})"


def source_line(filename: str, lineno: int | None) -> str:
    """The stripped text of ``filename:lineno`` ('' when unavailable)."""
    if not lineno:
        return ""
    return linecache.getline(filename, lineno).strip()
