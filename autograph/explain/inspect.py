"""``autograph.inspect(f)``: describe the live cache of a compiled function in plain words.

For each cache entry: its guards (plain words and the pasteable check code),
the transformed code (``render.transformed_text``, the same text dumps show), each subgraph's FX code with
source-line comments (plus kernel sources when the backend exposes them), and
each resume function as the original source with ``<== resumes here`` on the
line where it continues, followed by the resume function's own cache entries.
Reading only: nothing here changes a cache.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograph.explain import render
from autograph.explain.find import find_shim, original_function


@dataclass
class SubgraphView:
    name: str
    code: str
    op_count: int
    kernels: list[tuple[str, str]] = field(default_factory=list)

    def render(self) -> str:
        out = [f"Subgraph {self.name} ({self.op_count} ops):", render.indent(self.code)]
        for name, source in self.kernels:
            out += [f"  Kernel {name}:", render.indent(source, "      ")]
        return "\n".join(out)


@dataclass
class ResumeView:
    name: str
    where: str                   # "model.py:6"
    lineno: int | None
    source: str                  # original source with the marker line
    inspection: "Inspection | None" = None
    shown_above: bool = False    # the same resume function appears earlier in this output

    def render(self) -> str:
        out = [f"Resume function {self.name} continues at {self.where}:", render.indent(self.source)]
        if self.shown_above:
            out.append("  (its cache entries are shown above)")
        elif self.inspection is not None:
            out.append(render.indent(self.inspection.render(nested=True), "  "))
        return "\n".join(out)


@dataclass
class EntryView:
    index: int                   # 1-based, in the order the shim tries entries
    hits: int
    guards: list[str]            # plain words
    guard_source: str            # the GuardSet's generated check function
    transformed: str             # the transformed code's Python ('' when none)
    transformed_how: str         # "generated Python", "decompiled", or why it is bytecode
    subgraphs: list[SubgraphView] = field(default_factory=list)
    resumes: list[ResumeView] = field(default_factory=list)
    breaks: list[Any] = field(default_factory=list)  # capture's BreakRecords
    note: str = ""               # e.g. why this entry runs the original function

    def render(self) -> str:
        out = [f"Cache entry {self.index} — guards:"]
        out += [render.indent(line) for line in self.guards] or ["    (none)"]
        out.append(f"  used {self.hits} time{'s' if self.hits != 1 else ''} from the cache")
        if self.note:
            out.append(f"  {self.note}")
        out += ["Guard code (plain Python; returns the index of the first failing guard, -1 when all pass):",
                render.indent(self.guard_source)]
        if self.transformed:
            out += [f"Transformed code ({self.transformed_how}):", render.indent(self.transformed)]
        for b in self.breaks:
            where = f"{render.short_file(b.filename)}:{b.lineno}"
            out.append(f"Graph break: {b.reason}" + ("" if where in b.reason else f" at {where}"))
        out += [s.render() for s in self.subgraphs]
        out += [r.render() for r in self.resumes]
        return "\n".join(out)


@dataclass
class Inspection:
    """What ``autograph.inspect`` found; ``str()`` gives the full readable text."""

    name: str
    filename: str
    lineno: int
    compiled: bool
    entries: list[EntryView] = field(default_factory=list)
    eager_reason: str | None = None

    @property
    def where(self) -> str:
        return f"{render.short_file(self.filename)}:{self.lineno}"

    def render(self, nested: bool = False) -> str:
        if not self.compiled:
            return (f"{self.name} ({self.where}) is not compiled by autograph: inspect what "
                    f"autograph.compile({self.name.split('.')[-1]}) returned, or select its module in packages.allow.")
        n = len(self.entries)
        count = f"{n} cache entr{'y' if n == 1 else 'ies'}"
        head = (f"{self.name} has {count}." if nested else
                f"{self.name} ({self.where}) is compiled by autograph. It has {count}.")
        out = [head]
        if self.eager_reason:
            out.append(f"It runs eagerly from now on: {self.eager_reason}.")
        out += [e.render() for e in self.entries]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"<autograph.Inspection of {self.name}: {len(self.entries)} cache entries>"


def inspect(f: Any) -> Inspection:
    """Describe how autograph compiled ``f``: cache entries, guards, code, subgraphs, resumes.

    ``f`` may be what ``autograph.compile`` returned, a compiled module, a function
    instrumented by the import hook, or the original function.  ``print`` the result.
    """
    shim = find_shim(f)
    if shim is None:
        fn = original_function(f)
        code = getattr(fn, "__code__", None)
        name = getattr(fn, "__qualname__", None) or getattr(f, "__qualname__", None) or repr(f)
        return Inspection(name, code.co_filename if code else "?", code.co_firstlineno if code else 0, False)
    return _inspect_shim(shim, seen=set())


def _inspect_shim(shim: Any, seen: set[int]) -> Inspection:
    seen.add(id(shim))
    fn = shim.fn
    code = fn.__code__
    name = fn.__qualname__
    state = getattr(shim, "state", None)
    eager = getattr(state, "eager_reason", None) if getattr(state, "eager", False) else None
    if eager is None and getattr(state, "limit_reached", False):
        eager = getattr(getattr(shim, "stats", None), "eager_reason", None) or "recompile limit reached"
    entries = [_entry_view(i + 1, e, seen) for i, e in enumerate(shim.entries)]
    return Inspection(name, code.co_filename, code.co_firstlineno, True, entries, eager)


def _entry_view(index: int, entry: Any, seen: set[int]) -> EntryView:
    guards = getattr(entry, "guards", None)
    words = render.guard_words(getattr(guards, "guards", ()) or ())
    view = EntryView(index, getattr(entry, "hits", 0), words, render.guard_source(guards), "", "none")
    result = getattr(entry, "result", None)
    if result is None:
        stats = getattr(entry, "stats", None)
        view.note = "runs the original function (nothing was captured for it)" + (
            f": {stats.eager_reason}" if getattr(stats, "eager_reason", None) else "")
        return view
    view.transformed, view.transformed_how = render.transformed_text(result)
    if not view.transformed:
        view.note = "runs the original function (nothing to compile)"
    view.breaks = list(getattr(result, "breaks", ()) or ())
    for g in getattr(result, "graphs", ()) or ():
        view.subgraphs.append(SubgraphView(g.name, render.graph_code(g.gm), g.op_count,
                                           render.kernels_of(g.compiled)))
    for r in getattr(result, "resumes", ()) or ():
        code = r.original_code
        rv = ResumeView(r.name, render.where(code, r.lineno), r.lineno,
                        render.source_with_marker(code, r.lineno))
        inner = find_shim(r.function)
        if inner is not None:
            if id(inner) in seen:
                rv.shown_above = True
            else:
                inspection = _inspect_shim(inner, seen)
                inspection.name = r.name
                rv.inspection = inspection
        view.resumes.append(rv)
    return view
