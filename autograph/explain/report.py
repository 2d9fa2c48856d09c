"""The run report: one table per function autograph ran, as text or JSON.

``report()`` returns a :class:`RunReport` (``str()`` is the text tables,
``as_dict()``/``to_json()`` the same data).  ``print_report(settings)`` is what
``python -m autograph run --report[=PATH]`` calls at exit: tables on stderr (the
program's stdout stays its own) and, when ``settings.report`` is a path, the
JSON written there.

Data comes from ``autograph.runtime.stats`` (counters) and the live cache
entries (break locations, graph op counts).  The share of torch calls inside
graphs is counted by ``autograph.explain.torch_calls``, which is installed only
when the report is on (``settings.report``); without it the share is n/a
(``null`` in JSON), never guessed.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from autograph.explain import render
from autograph.settings import Settings

SCHEMA_VERSION = 1
SUMMARY_WIDTH = 100   # columns of the summary at exit
SUMMARY_ROWS = 20     # functions shown in it (the rest: `autograph report r.json --all`)
NOT_AVAILABLE = "n/a"
MISSING_DATA = ["torch_call_share: torch calls are counted only when the report is on from the start "
                "(settings.report / --report / AUTOGRAPH_REPORT)"]
COUNTING_NOTE = ("torch calls in graphs: torch-function calls per instrumented function; inside a graph "
                 "the eager backend's calls are counted one by one, other backends count the graph's op "
                 "count per run")


@dataclass
class BreakInfo:
    reason: str
    filename: str | None
    lineno: int | None
    kind: str = "unsupported"  # a capture.breaks.BREAK_KINDS name

    @property
    def where(self) -> str:
        return f"{render.short_file(self.filename)}:{self.lineno}" if self.filename else "location unknown"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "filename": self.filename, "lineno": self.lineno}


CODE_LIMIT = 200_000  # characters kept of one piece of code in the saved report


def _cut(text: str) -> str:
    return text if len(text) <= CODE_LIMIT else text[:CODE_LIMIT] + f"\n# ... cut at {CODE_LIMIT} characters\n"


@dataclass
class EntryCode:
    """What one cache entry runs, as text, so a saved report can show it (``report --html``):
    its guards in plain words and as the generated check, its transformed code, and each graph's FX code."""
    guards: list[str]
    guard_check: str
    transformed: str | None
    graphs: list[tuple[str, int, str]]   # (name, op count, FX code)

    @classmethod
    def of(cls, entry: Any) -> "EntryCode":
        guards = getattr(entry, "guards", None)
        result = getattr(entry, "result", None)
        transformed = render.transformed_text(result)[0] if result is not None else ""
        graphs = [(str(g.name), int(getattr(g, "op_count", 0)), _cut(render.graph_code(g.gm)))
                  for g in getattr(result, "graphs", ()) or ()]
        return cls(guards=render.guard_words(getattr(guards, "guards", ()) or ()),
                   guard_check=_cut(render.guard_source(guards)), transformed=_cut(transformed) or None,
                   graphs=graphs)

    def as_dict(self) -> dict[str, Any]:
        return {"guards": list(self.guards), "guard_check": self.guard_check, "transformed": self.transformed,
                "graphs": [{"name": n, "ops": ops, "code": code} for n, ops, code in self.graphs]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EntryCode":
        return cls(guards=list(d.get("guards", ())), guard_check=d.get("guard_check", ""),
                   transformed=d.get("transformed"),
                   graphs=[(g["name"], g.get("ops", 0), g.get("code", "")) for g in d.get("graphs", ())])


@dataclass
class FunctionReport:
    qualname: str
    filename: str
    lineno: int
    calls: int
    hits: int
    misses: int
    eager_calls: int
    captures: int
    cache_entries: int
    recompiles: list[tuple[str, str]]          # (failing guard src, plain words)
    breaks: list[BreakInfo]
    errors: list[str]
    ops_in_graphs: int
    capture_seconds: float
    compile_seconds: float
    eager_reason: str | None = None
    resume_of: str | None = None               # qualname of the function a resume function continues
    torch_calls_in_graphs: int | None = None   # None: not counted (report off when it ran)
    torch_calls_total: int | None = None
    cold_calls: int = 0                        # calls run eagerly while below compile_threshold
    compile_threshold: int | None = None
    eager_reasons: list[tuple[str, int]] = field(default_factory=list)  # why calls ran the original
    backend: str | None = None                 # what compiled its graphs
    verified_calls: int = 0                    # settings.verify: calls checked against the original
    verify_mismatches: list[str] = field(default_factory=list)
    verify_skipped: list[str] = field(default_factory=list)
    code: list[EntryCode] = field(default_factory=list)  # per live cache entry (empty when none is live)

    @property
    def torch_call_share(self) -> float | None:
        if not self.torch_calls_total:
            return None
        return self.torch_calls_in_graphs / self.torch_calls_total

    @property
    def where(self) -> str:
        return f"{render.short_file(self.filename)}:{self.lineno}"

    @property
    def not_compiled(self) -> str | None:
        """Why a function that was called has no compiled code (``None`` when it has some)."""
        if self.captures or not self.calls:
            return None
        if self.eager_reason:
            return self.eager_reason
        top = self.eager_reasons[0][0] if self.eager_reasons else "never captured"
        if top.startswith("cold, not compiled: below compile_threshold"):
            times = "once" if self.calls == 1 else f"{self.calls} times"
            return f"cold, not compiled: called {times}, below compile_threshold ({self.compile_threshold})"
        return top

    def as_dict(self) -> dict[str, Any]:
        return {
            "qualname": self.qualname, "filename": self.filename, "lineno": self.lineno,
            "resume_of": self.resume_of, "calls": self.calls, "cache_hits": self.hits,
            "misses": self.misses, "eager_calls": self.eager_calls, "captures": self.captures,
            "cache_entries": self.cache_entries,
            "recompiles": [{"guard": g, "reason": why} for g, why in self.recompiles],
            "graph_breaks": [b.as_dict() for b in self.breaks], "errors": list(self.errors),
            "ops_in_graphs": self.ops_in_graphs, "torch_call_share": self.torch_call_share,
            "torch_calls_in_graphs": self.torch_calls_in_graphs, "torch_calls_total": self.torch_calls_total,
            "capture_seconds": round(self.capture_seconds, 6), "compile_seconds": round(self.compile_seconds, 6),
            "eager_reason": self.eager_reason, "cold_calls": self.cold_calls,
            "compile_threshold": self.compile_threshold, "not_compiled": self.not_compiled,
            "eager_reasons": [{"reason": r, "calls": n} for r, n in self.eager_reasons],
            "backend": self.backend,
            "verified_calls": self.verified_calls,
            "verify_mismatches": list(self.verify_mismatches), "verify_skipped": list(self.verify_skipped),
            "cache_entry_code": [c.as_dict() for c in self.code],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "FunctionReport":
        """The inverse of :meth:`as_dict` (``autograph report r.json`` re-renders a saved report)."""
        return cls(
            qualname=d["qualname"], filename=d.get("filename") or "", lineno=d.get("lineno") or 0,
            calls=d.get("calls", 0), hits=d.get("cache_hits", 0), misses=d.get("misses", 0),
            eager_calls=d.get("eager_calls", 0), captures=d.get("captures", 0),
            cache_entries=d.get("cache_entries", 0),
            recompiles=[(r["guard"], r["reason"]) for r in d.get("recompiles", ())],
            breaks=[BreakInfo(b["reason"], b.get("filename"), b.get("lineno"), b.get("kind", "unsupported"))
                    for b in d.get("graph_breaks", ())],
            errors=list(d.get("errors", ())), ops_in_graphs=d.get("ops_in_graphs", 0),
            capture_seconds=d.get("capture_seconds", 0.0), compile_seconds=d.get("compile_seconds", 0.0),
            eager_reason=d.get("eager_reason"), resume_of=d.get("resume_of"),
            torch_calls_in_graphs=d.get("torch_calls_in_graphs"), torch_calls_total=d.get("torch_calls_total"),
            cold_calls=d.get("cold_calls", 0), compile_threshold=d.get("compile_threshold"),
            eager_reasons=[(r["reason"], r["calls"]) for r in d.get("eager_reasons", ())],
            backend=d.get("backend"), verified_calls=d.get("verified_calls", 0),
            verify_mismatches=list(d.get("verify_mismatches", ())), verify_skipped=list(d.get("verify_skipped", ())),
            code=[EntryCode.from_dict(c) for c in d.get("cache_entry_code", ())])

    @property
    def hot_eager_calls(self) -> int:
        """Calls that ran the original although the function was warm (a fallback, not the warm-up)."""
        return max(self.eager_calls - self.cold_calls, 0)

    @property
    def only_cold(self) -> bool:
        """Never compiled, and every call was part of the warm-up: nothing to look at."""
        return not self.captures and not self.hot_eager_calls and not self.errors and not self.breaks

    def badness(self) -> tuple[int, ...]:
        """Sort key, worst first: verify mismatches, warm calls run eagerly, breaks, recompiles, errors."""
        return (len(self.verify_mismatches), self.hot_eager_calls, len(self.breaks), len(self.recompiles),
                len(self.errors), 0 if self.only_cold else 1, self.calls)

    def status(self) -> str:
        """One phrase for the summary's last column."""
        if self.verify_mismatches:
            return f"VERIFY MISMATCH: {self.verify_mismatches[0]}"
        if self.not_compiled:
            return self.not_compiled.replace("cold, not compiled: ", "cold: ")
        if self.hot_eager_calls and self.eager_reasons:
            return self.eager_reasons[0][0]
        if self.breaks:
            first = self.breaks[0]
            return f"{first.kind}, line {first.lineno}" if first.filename == self.filename else \
                f"{first.kind}, {first.where}"
        if self.recompiles:
            return f"recompiled: {self.recompiles[0][1] or self.recompiles[0][0]}"
        return f"compiled ({self.ops_in_graphs} ops)"

    def rows(self, run_backend: str | None = None) -> list[tuple[str, str]]:
        rows = [("not compiled", self.not_compiled)] if self.not_compiled else []
        if self.backend and self.backend != run_backend:
            rows.append(("backend", self.backend))
        rows += [("calls", str(self.calls)), ("cache hits", str(self.hits)),
                ("captures", str(self.captures)), ("cache entries", str(self.cache_entries)),
                ("recompiles", str(len(self.recompiles)))]
        rows += [("", f"guard failed: {g}") for g, _ in self.recompiles]
        rows.append(("graph breaks", str(len(self.breaks))))
        rows += [("", text) for text in _grouped(self.breaks)]
        rows.append(("ops in graphs", str(self.ops_in_graphs)))
        share = NOT_AVAILABLE if self.torch_call_share is None else (
            f"{self.torch_call_share:.1%} ({self.torch_calls_in_graphs}/{self.torch_calls_total})")
        rows.append(("torch calls in graphs", share))
        rows.append(("capture time", f"{self.capture_seconds:.3f} s"))
        rows.append(("compile time", f"{self.compile_seconds:.3f} s"))
        if self.eager_calls:
            rows.append(("eager calls", str(self.eager_calls)))
            if [reason for reason, _ in self.eager_reasons] != [self.not_compiled]:
                rows += [("", f"{reason} ×{n}") for reason, n in self.eager_reasons]
        if self.eager_reason and self.eager_reason != self.not_compiled:
            rows.append(("runs eagerly", self.eager_reason))
        rows += [("capture error", e) for e in self.errors if f"capture failed: {e}" != self.eager_reason]
        if self.verified_calls or self.verify_mismatches or self.verify_skipped:
            rows.append(("verified calls", str(self.verified_calls)))
        rows += [("VERIFY MISMATCH", m) for m in self.verify_mismatches]
        rows += [("verify", m) for m in self.verify_skipped]
        return rows

    def table(self, run_backend: str | None = None) -> str:
        title = f"{self.qualname} ({self.where})"
        if self.resume_of:
            title += f" — resume function of {self.resume_of}"
        return _table(title, self.rows(run_backend))


@dataclass
class RunReport:
    functions: list[FunctionReport] = field(default_factory=list)
    counted: bool = False                      # torch calls were counted (the counter was on)
    backend: str | None = None                 # the run's backend setting, ``auto`` with what it chose
    optimizer_steps: list[str] = field(default_factory=list)  # per optimizer: which step runs, and why

    def totals(self) -> dict[str, Any]:
        f = self.functions
        return {"functions": len(f), "calls": sum(x.calls for x in f), "cache_hits": sum(x.hits for x in f),
                "captures": sum(x.captures for x in f), "recompiles": sum(len(x.recompiles) for x in f),
                "graph_breaks": sum(len(x.breaks) for x in f),
                "verify_mismatches": sum(len(x.verify_mismatches) for x in f),
                "capture_seconds": round(sum(x.capture_seconds for x in f), 6),
                "compile_seconds": round(sum(x.compile_seconds for x in f), 6)}

    def breaks_by_kind(self) -> dict[str, tuple[int, int]]:
        """Kind -> (breaks, functions with one), over every function, most frequent first."""
        counts: dict[str, list[int]] = {}
        for f in self.functions:
            kinds = [b.kind for b in f.breaks]
            for kind in dict.fromkeys(kinds):
                n = counts.setdefault(kind, [0, 0])
                n[0] += kinds.count(kind)
                n[1] += 1
        return {k: (n, fns) for k, (n, fns) in sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))}

    def _kinds_as_dicts(self) -> list[dict[str, Any]]:
        from autograph.explain.break_kinds import describe

        return [{"kind": k, "breaks": n, "functions": fns, "explanation": describe(k).explanation,
                 "hint": describe(k).hint} for k, (n, fns) in self.breaks_by_kind().items()]

    def _kinds_text(self) -> str:
        from autograph.explain.break_kinds import describe

        lines = ["graph breaks by kind:"]
        for k, (n, fns) in self.breaks_by_kind().items():
            lines.append(f"  {k}: {n} break{'s' if n != 1 else ''} in {fns} function{'s' if fns != 1 else ''}"
                         f" — {describe(k).explanation}")
            lines.append(f"    what to do: {describe(k).hint}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"autograph_report": SCHEMA_VERSION, "backend": self.backend, "totals": self.totals(),
                "graph_breaks_by_kind": self._kinds_as_dicts(),
                "functions": [x.as_dict() for x in self.functions],
                "torch_call_counting": COUNTING_NOTE if self.counted else None,
                "not_measured": [] if self.counted else list(MISSING_DATA),
                "optimizer_steps": list(self.optimizer_steps)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RunReport":
        if d.get("autograph_report") != SCHEMA_VERSION:
            raise ValueError(f"not an autograph run report (schema {SCHEMA_VERSION}): "
                             f"'autograph_report' is {d.get('autograph_report')!r}")
        return cls([FunctionReport.from_dict(f) for f in d.get("functions", ())],
                   counted=d.get("torch_call_counting") is not None, backend=d.get("backend"),
                   optimizer_steps=list(d.get("optimizer_steps", ())))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "RunReport":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def headline(self) -> str:
        t = self.totals()
        s = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"  # noqa: E731
        line = (f"autograph: {s(t['functions'], 'function')}, {s(t['calls'], 'call')}, "
                f"{s(t['captures'], 'capture')}, {s(t['recompiles'], 'recompile')}, "
                f"{s(t['graph_breaks'], 'graph break')}")
        times = f"capture {t['capture_seconds']:.2f} s, compile {t['compile_seconds']:.2f} s"
        return f"{line}\n" + (f"backend: {self.backend}; {times}" if self.backend else times)

    def summary(self, details: str | None = None, max_rows: int = SUMMARY_ROWS) -> str:
        """One row per function, worst first, at most ``SUMMARY_WIDTH`` columns; functions that only
        warmed up (cold, never compiled) folded into one line; ``details`` names the full report."""
        if not self.functions:
            return "autograph: no compiled function was called." + (f"\nbackend: {self.backend}" if self.backend else "")
        ranked = sorted(self.functions, key=lambda f: f.badness(), reverse=True)
        shown = [f for f in ranked if not f.only_cold][:max_rows]
        rest = [f for f in ranked if f not in shown]
        head = ("function", "where", "calls", "eager", "breaks", "recomp", "status")
        rows = [(f.qualname, f.where, str(f.calls), str(f.hot_eager_calls), str(len(f.breaks)),
                 str(len(f.recompiles)), f.status()) for f in shown]
        lines = [self.headline()]
        t = self.totals()
        if t["verify_mismatches"]:
            lines.append(f"VERIFY: {t['verify_mismatches']} cache entries behaved differently from the original "
                         "function (those entries now run the original)")
        if rows:
            lines += _columns(head, rows, SUMMARY_WIDTH)
        if rest:
            names = ", ".join(f.qualname for f in rest)
            line = f"{len(rest)} more not compiled (cold: warm-up calls only): {names}"
            lines.append(line if len(line) <= SUMMARY_WIDTH else line[:SUMMARY_WIDTH - 3] + "...")
        for line in self.optimizer_steps:
            lines.append(line if len(line) <= SUMMARY_WIDTH else line[:SUMMARY_WIDTH - 3] + "...")
        if details:
            lines.append(f"details: `{details}`")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)

    def write_json(self, path: str | os.PathLike) -> Path:
        path = Path(path).expanduser()
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json() + "\n", encoding="utf-8")
        return path

    def __str__(self) -> str:
        t = self.totals()
        backend = f"\nbackend: {self.backend}" if self.backend else ""
        if not self.functions:
            return "autograph run report: no compiled function was called." + backend
        head = (f"autograph run report: {t['functions']} function{'s' if t['functions'] != 1 else ''}, "
                f"{t['calls']} calls, {t['captures']} captures, {t['recompiles']} recompiles, "
                f"{t['graph_breaks']} graph breaks, capture {t['capture_seconds']:.3f} s, "
                f"compile {t['compile_seconds']:.3f} s{backend}")
        if t["verify_mismatches"]:
            head += (f"\nVERIFY: {t['verify_mismatches']} cache entr{'y' if t['verify_mismatches'] == 1 else 'ies'} "
                     "behaved differently from the original function (see the tables; those entries now run "
                     "the original)")
        tail = [COUNTING_NOTE] if self.counted else []
        tail = _background_text() + (["\n".join(self.optimizer_steps)] if self.optimizer_steps else []) + tail
        kinds = [self._kinds_text()] if self.breaks_by_kind() else []
        return "\n\n".join([head] + kinds + [x.table(self.backend) for x in self.functions] + tail)


def _columns(head: tuple[str, ...], rows: list[tuple[str, ...]], width: int) -> list[str]:
    """A plain table (no borders): numbers right-aligned, the first column and the last cut to fit ``width``."""
    numeric = [all(r[i].isdigit() for r in rows) for i in range(len(head))]
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]
    widths[0] = min(widths[0], 24)
    widths[1] = min(widths[1], 16)
    fixed = sum(widths[:-1]) + 2 * (len(head) - 1)
    widths[-1] = max(width - fixed, 10)

    def cell(text: str, i: int) -> str:
        w = widths[i]
        if len(text) > w:
            text = text[:w - 3] + "..." if i == len(head) - 1 else "..." + text[-(w - 3):]
        return text.rjust(w) if numeric[i] else text.ljust(w)

    return ["  ".join(cell(r[i], i) for i in range(len(head))).rstrip() for r in [head, *rows]]


def _background_text() -> list[str]:
    """Which version each graph of ``auto``'s background compiles runs, and why (none: nothing)."""
    import sys

    background = sys.modules.get("autograph.backends.background")
    graphs = background.graphs() if background is not None else []
    if not graphs:
        return []
    return ["graphs compiled in the background (version run, and why):\n"
            + "\n".join(f"  {g.describe()}" for g in graphs)]


def _optimizer_lines() -> list[str]:
    """Which version each optimizer's ``opt.step()`` runs (backends/optimizer_update.py), and why:
    one line each (none when no compiled code called an optimizer's step through it)."""
    import sys

    module = sys.modules.get("autograph.backends.optimizer_update")
    return [f"optimizer step {u.describe()}" for u in (module.updates() if module is not None else [])]


def _grouped(breaks: list[BreakInfo]) -> list[str]:
    """One line per kind and place (each capture of the same code breaks at the same place, its
    reason text may carry per-call detail): ``[kind] first reason (where) ×N``."""
    groups: dict[tuple[str, str], list[BreakInfo]] = {}
    for b in breaks:
        groups.setdefault((b.kind, b.where), []).append(b)
    out = []
    for (kind, where), group in groups.items():
        reason = group[0].reason
        text = f"[{kind}] " + (reason if where in reason else f"{reason} ({where})")
        out.append(text if len(group) == 1 else f"{text} ×{len(group)}")
    return out


def _table(title: str, rows: list[tuple[str, str]]) -> str:
    left = max(len(k) for k, _ in rows)
    right = max(max(len(v) for _, v in rows), len(title) - left - 3)
    rule = f"+-{'-' * left}-+-{'-' * right}-+"
    lines = [rule, f"| {title.ljust(left + right + 3)} |", rule]
    lines += [f"| {k.ljust(left)} | {v.ljust(right)} |" for k, v in rows]
    lines.append(rule)
    return "\n".join(lines)


def report(settings: Settings | None = None) -> RunReport:
    """The run report so far: every function autograph ran, in order of first call.

    ``settings`` (default: the process settings) names the run's backend in the header.
    """
    from autograph.backends.registry import describe
    from autograph.explain import torch_calls
    from autograph.runtime.stats import all_stats
    from autograph.settings import current_settings

    counted = torch_calls.active() or bool(torch_calls._counts)
    backend = describe((settings or current_settings()).backend)
    return RunReport([_function_report(st, counted) for st in all_stats()], counted=counted, backend=backend,
                     optimizer_steps=_optimizer_lines())


def _function_report(st: Any, counted: bool = False) -> FunctionReport:
    entries = list(getattr(st, "entries", ()) or ())
    breaks: list[BreakInfo] = []
    ops = 0
    for e in entries:
        result = getattr(e, "result", None)
        for b in getattr(result, "breaks", ()) or ():
            breaks.append(BreakInfo(b.reason, b.filename, b.lineno, b.kind))
        ops += sum(getattr(g, "op_count", 0) for g in getattr(result, "graphs", ()) or ())
    if len(breaks) < getattr(st, "breaks", 0):  # entries dropped (reset): keep the recorded reasons
        kinds = list(st.break_kinds) + ["unsupported"] * (len(st.break_reasons) - len(st.break_kinds))
        breaks += [BreakInfo(r, None, None, k) for r, k in zip(st.break_reasons[len(breaks):], kinds[len(breaks):])]
    qualname = st.qualname
    resume_of = None
    from autograph.explain.torch_calls import counts_for

    counts = counts_for(st)
    in_graphs, total = (counts.inside, counts.total) if counts is not None else (0, 0) if counted else (None, None)
    head, _, last = qualname.rpartition(".")
    if last.startswith("__resume_at_"):
        resume_of = head or None
    return FunctionReport(
        qualname=qualname, filename=st.filename, lineno=st.lineno, calls=st.calls, hits=st.hits,
        misses=st.misses, eager_calls=st.eager_calls, captures=st.captures, cache_entries=len(entries),
        recompiles=[(r.guard_src, r.description) for r in st.recompiles], breaks=breaks,
        errors=list(st.errors), ops_in_graphs=ops, capture_seconds=st.capture_seconds,
        compile_seconds=st.compile_seconds, eager_reason=st.eager_reason, resume_of=resume_of,
        torch_calls_in_graphs=in_graphs, torch_calls_total=total, cold_calls=st.cold_calls,
        compile_threshold=st.compile_threshold, eager_reasons=st.eager_reasons(), backend=st.backend,
        verified_calls=getattr(st, "verified_calls", 0), verify_mismatches=list(getattr(st, "verify_mismatches", ())),
        verify_skipped=list(getattr(st, "verify_skipped", ())), code=_entry_code(entries))


def _entry_code(entries: list[Any]) -> list[EntryCode]:
    """The code of each live entry; an entry whose text cannot be made is left out (the report is best effort)."""
    out = []
    for e in entries:
        try:
            out.append(EntryCode.of(e))
        except Exception:  # noqa: BLE001 - a half-built entry must not cost the whole report
            continue
    return out


def rank_label() -> str | None:
    """``rank1`` when this process is one rank of several (torchrun's ``RANK``/``WORLD_SIZE``), else None."""
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            return f"rank{dist.get_rank()}"
    except Exception:  # noqa: BLE001 - a torn-down process group at exit
        pass
    rank, world = os.environ.get("RANK"), os.environ.get("WORLD_SIZE")
    if rank is not None and rank.isdigit() and world is not None and world.isdigit() and int(world) > 1:
        return f"rank{rank}"
    return None


def rank_path(path: str | os.PathLike, label: str | None) -> Path:
    """``r.json`` -> ``r.rank0.json`` for one rank of several (each rank writes its own file)."""
    path = Path(path).expanduser()
    return path if label is None else path.with_name(f"{path.stem}.{label}{path.suffix or '.json'}")


def _keep_last(rep: RunReport, settings: Settings, label: str | None) -> Path | None:
    """``report: true`` (no path): the JSON goes to ``<cache_dir>/reports/last.json``, best effort."""
    try:
        return rep.write_json(rank_path(settings.cache_path() / "reports" / "last.json", label))
    except (OSError, TypeError, ValueError):
        return None


def _shown_path(path: Path) -> str:
    """The path as a user would type it: relative below the current directory, ``~`` for home."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        pass
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home):] if home not in ("", "/") and text.startswith(home + os.sep) else text


def print_report(settings: Settings | None = None, *, stream: TextIO | None = None) -> RunReport:
    """At exit: write the JSON when ``settings.report`` is a path (one file per rank), and print
    the summary (``report_style: summary``), every table (``all``) or nothing (``quiet``) on stderr,
    each line prefixed ``[rankN]`` under torchrun."""
    rep = report(settings)
    stream = stream if stream is not None else sys.stderr
    target = settings.report if settings is not None else None
    style = getattr(settings, "report_style", "summary") if settings is not None else "summary"
    label = rank_label()
    written: Path | None = None
    note = ""
    if isinstance(target, (str, os.PathLike)) and not isinstance(target, bool) and str(target):
        try:
            written = rep.write_json(rank_path(target, label))
        except OSError as exc:
            note = f"autograph: could not write the report to {target}: {exc.strerror or exc}"
    elif settings is not None and style != "quiet":
        written = _keep_last(rep, settings, label)  # so that `autograph report ... --all` always works
    if style == "quiet":
        text = note
    elif style == "all":
        text = str(rep) + (f"\n\nautograph: report written to {written}" if written else "")
        text += f"\n\n{note}" if note else ""
    else:
        details = f"autograph report {_shown_path(written)} --all" if written else None
        text = rep.summary(details) + (f"\n{note}" if note else "")
    if label and text:
        text = "\n".join(f"[{label}] {line}" for line in text.split("\n"))
    try:
        if text:
            stream.write(text + "\n")
            stream.flush()
    except Exception:  # noqa: BLE001 - at exit the stream may be gone; the report is best effort
        pass
    return rep
