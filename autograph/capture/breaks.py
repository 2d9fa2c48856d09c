"""Graph-break signalling and records.

``Unsupported`` is raised by any handler or value that cannot be represented in
the graph; the interpreter turns it into a :class:`BreakRecord` at the root
instruction it happened under (a break inside an inlined callee breaks at the
call site in the caller).
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BreakKind:
    """A stable category of graph break: what it means in plain words and what the user can do."""

    name: str
    explanation: str
    hint: str


# Every kind of graph break, by stable name (the report counts breaks by kind, `explain` shows
# the hint, docs list them). Register new kinds with :func:`break_kind`; raise
# ``Unsupported(reason, kind="name")``, where ``reason`` carries the per-site detail.
BREAK_KINDS: dict[str, BreakKind] = {}


def break_kind(name: str, explanation: str, hint: str) -> str:
    """Register (or return) a break kind; returns its name for use in ``Unsupported(kind=...)``."""
    BREAK_KINDS.setdefault(name, BreakKind(name, explanation, hint))
    return name


UNSUPPORTED = break_kind(
    "unsupported", "capture met a Python construct it cannot represent in a graph",
    "the code around it runs in Python; if it matters, report it with `autograph.explain(f)`'s output")


class Unsupported(Exception):
    """Capture cannot continue here; ``reason`` is in the user's language, ``kind`` a
    :data:`BREAK_KINDS` name."""

    def __init__(self, reason: str, *, kind: str = UNSUPPORTED, generic: bool = False,
                 exc: BaseException | None = None):
        super().__init__(reason)
        if kind not in BREAK_KINDS:
            raise KeyError(f"unknown break kind {kind!r}: register it with break_kind()")
        self.kind = kind
        self.reason = reason
        # the real exception, when capture knows exactly what Python raises here
        self.exc = exc
        # user stack of (filename, lineno, function name), innermost last
        self.user_stack: list[tuple[str, int, str]] = []
        self.generic = generic
        # planning a break failed: the root step (see Translator.step) where breaking instead
        # avoids the cause (where the value that cannot be rebuilt was made), if known
        self.retry_step: int | None = None


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
    kind: str = UNSUPPORTED

    def __str__(self) -> str:
        return f"{self.reason} ({self.filename}:{self.lineno})"


def source_line(filename: str, lineno: int | None) -> str:
    """The stripped text of ``filename:lineno`` ('' when unavailable)."""
    if not lineno:
        return ""
    return linecache.getline(filename, lineno).strip()
