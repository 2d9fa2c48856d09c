"""Per-function counters for the run report: plain data, rendered by ``autograph.explain``.

The hit path only bumps ``CacheEntry.hits``; everything else is counted on the
(slow) miss path, so keeping statistics costs the fast path nothing more.
"""
from __future__ import annotations

import threading
import types
import weakref
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Recompile:
    """Why an existing cache was not used: the failing guard of the newest entry."""

    guard_src: str
    description: str


@dataclass
class FunctionStats:
    qualname: str
    filename: str
    lineno: int
    eager_direct: int = 0       # calls that ran the original through the slow path
    misses: int = 0             # calls that found no matching entry
    captures: int = 0           # successful captures (cache entries created)
    recompiles: list[Recompile] = field(default_factory=list)
    breaks: int = 0             # graph breaks over all captures
    break_reasons: list[str] = field(default_factory=list)
    break_kinds: list[str] = field(default_factory=list)  # capture.breaks kind of each break_reasons entry
    errors: list[str] = field(default_factory=list)  # capture failures (on_error: fallback)
    capture_seconds: float = 0.0
    compile_seconds: float = 0.0
    eager_reason: str | None = None  # why the function now always runs eagerly
    torch_compile_calls: int = 0     # calls inside a torch.compile region: left to TorchDynamo
    cold_calls: int = 0         # calls run eagerly while below compile_threshold (import-hook functions)
    compile_threshold: int | None = None  # the threshold those calls were counted against
    eager_why: dict[str, int] = field(default_factory=dict)  # slow-path eager calls by reason
    backend: str | None = None  # the backend the captures used ("auto → eager", "triton", ...)
    verified_calls: int = 0     # calls checked against the original (settings.verify)
    verify_mismatches: list[str] = field(default_factory=list)  # what differed, per disabled entry
    verify_skipped: list[str] = field(default_factory=list)     # why some calls could not be verified
    # CacheEntry objects, held weakly so a dead function's cache is freed; hits of dead ones are folded
    entry_refs: list[Any] = field(default_factory=list, repr=False)
    eager_entry_refs: list[Any] = field(default_factory=list, repr=False)  # guard-free entries (the original)
    dead_hits: int = 0
    dead_eager_hits: int = 0

    def ran_eagerly(self, reason: str) -> None:
        """Count one call that ran the original through the slow path, and why."""
        self.eager_direct += 1
        self.eager_why[reason] = self.eager_why.get(reason, 0) + 1

    def eager_reasons(self) -> list[tuple[str, int]]:
        """Every reason calls ran eagerly, with counts (hits of a guard-free entry: ``eager_reason``)."""
        counts = dict(self.eager_why)
        entry_hits = self.dead_eager_hits + sum(e.hits for e in self.eager_entries)
        if entry_hits:
            reason = self.eager_reason or "marked eager"
            counts[reason] = counts.get(reason, 0) + entry_hits
        untold = self.eager_calls - sum(counts.values())
        if untold > 0:  # counted through the eager_calls setter by code that gave no reason
            counts["reason not recorded"] = untold
        return sorted(counts.items(), key=lambda item: -item[1])

    def add_entry(self, entry: Any) -> None:
        entry.stats = self
        (self.eager_entry_refs if entry.eager else self.entry_refs).append(weakref.ref(entry))

    def fold_hits(self, entry: Any) -> None:
        """Called by a dying entry: keep its hits in the totals."""
        if entry.eager:
            self.dead_eager_hits += entry.hits
        else:
            self.dead_hits += entry.hits

    @property
    def entries(self) -> list[Any]:
        """The live compiled cache entries."""
        return [e for e in (r() for r in self.entry_refs) if e is not None]

    @property
    def eager_entries(self) -> list[Any]:
        return [e for e in (r() for r in self.eager_entry_refs) if e is not None]

    @property
    def eager_calls(self) -> int:
        """Calls that ran the original (off, capturing, marked eager, run-only miss...)."""
        return self.eager_direct + self.dead_eager_hits + sum(e.hits for e in self.eager_entries)

    @eager_calls.setter
    def eager_calls(self, value: int) -> None:
        self.eager_direct = value - self.dead_eager_hits - sum(e.hits for e in self.eager_entries)

    @property
    def hits(self) -> int:
        return self.dead_hits + sum(e.hits for e in self.entries)

    @property
    def calls(self) -> int:
        return self.hits + self.eager_calls + self._compiled_misses + self.torch_compile_calls

    @property
    def _compiled_misses(self) -> int:
        # a miss that led to a capture ran the new entry (counted as a miss, not a hit)
        return self.captures

    def as_dict(self) -> dict[str, Any]:
        return {
            "qualname": self.qualname, "filename": self.filename, "lineno": self.lineno,
            "calls": self.calls, "hits": self.hits, "misses": self.misses,
            "eager_calls": self.eager_calls, "captures": self.captures,
            "recompiles": [r.guard_src for r in self.recompiles],
            "recompile_reasons": [r.description for r in self.recompiles],
            "breaks": self.breaks, "break_reasons": list(self.break_reasons), "break_kinds": list(self.break_kinds),
            "errors": list(self.errors), "capture_seconds": self.capture_seconds,
            "compile_seconds": self.compile_seconds, "eager_reason": self.eager_reason,
            "cold_calls": self.cold_calls, "compile_threshold": self.compile_threshold,
            "eager_reasons": [{"reason": r, "calls": n} for r, n in self.eager_reasons()], "backend": self.backend,
            "cache_entries": len(self.entries), "torch_compile_calls": self.torch_compile_calls,
            "verified_calls": self.verified_calls,
            "verify_mismatches": list(self.verify_mismatches), "verify_skipped": list(self.verify_skipped),
        }


_lock = threading.Lock()
# id(code) -> (weak reference to the code, stats): the stats outlive the code (the report names a
# function that is gone from its qualname/filename/lineno), the code is not kept alive
_by_code: dict[int, tuple[weakref.ref, FunctionStats]] = {}
_order: list[FunctionStats] = []


def stats_for(code: types.CodeType, qualname: str | None = None) -> FunctionStats:
    """The (one) stats record of a code object (by identity), created on first use.

    The record names its function by qualname, file and line, so it outlives the code object
    without keeping it alive (a resume function's code dies with it); ``reset_stats()`` drops
    the records.
    """
    item = _by_code.get(id(code))
    if item is None or item[0]() is not code:
        with _lock:
            item = _by_code.get(id(code))
            if item is None or item[0]() is not code:
                st = FunctionStats(qualname or code.co_qualname, code.co_filename, code.co_firstlineno)
                item = _by_code[id(code)] = (weakref.ref(code), st)
                _order.append(st)
    return item[1]


def stats_of_code(code: types.CodeType) -> FunctionStats | None:
    """The stats record of ``code`` if it has one (no record is created)."""
    item = _by_code.get(id(code))
    return item[1] if item is not None and item[0]() is code else None


def all_stats() -> list[FunctionStats]:
    """Every function the runtime has run (at least one call), in order of first sight."""
    with _lock:
        return [st for st in _order if st.calls or st.misses or st.errors]


def reset_stats() -> None:
    with _lock:
        _by_code.clear()
        _order.clear()
