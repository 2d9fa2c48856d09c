"""``autograph report r.json --html DIR``: the run report as pages one looks at, as ``coverage html``
does for coverage.

``index.html`` lists every function worst first (the summary's order); each function has a page
with its source, every line marked: ``compiled`` (the function has compiled code), ``break``
(a graph break: its kind, reason and what to do, inline), ``eager`` (the function ran its original
code although warm: a fallback, with the reason) or ``cold`` (only warm-up calls, never compiled).
Built from the saved JSON and the source files as they are now; nothing is imported or run.
"""
from __future__ import annotations

import html
import linecache
import os
from pathlib import Path
from typing import Any

from autograph.explain.report import FunctionReport, RunReport

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { padding: 2px 10px; text-align: left; border-bottom: 1px solid #ddd; }
td.num { text-align: right; }
pre.code { font-family: ui-monospace, monospace; background: #f7f7f7; padding: 0.6em; overflow-x: auto; }
pre.source { font-family: ui-monospace, monospace; line-height: 1.35; }
.line { display: block; white-space: pre; padding-left: 0.5em; border-left: 6px solid transparent; }
.compiled { background: #e6f6e6; border-left-color: #3a3; }
.break { background: #fdecea; border-left-color: #c33; }
.eager { background: #fff4d6; border-left-color: #d90; }
.cold { background: #f2f2f2; border-left-color: #aaa; color: #666; }
.note { display: block; white-space: pre-wrap; margin: 0 0 0.4em 4em; color: #a22; font-family: system-ui; }
.legend span { padding: 0 0.6em; margin-right: 0.4em; }
"""
LEGEND = ('<p class="legend"><span class="compiled">compiled</span><span class="break">graph break</span>'
          '<span class="eager">ran eagerly</span><span class="cold">cold (warm-up only)</span></p>')


def write_html(report: RunReport, directory: str | os.PathLike, kinds: dict[str, dict[str, str]] | None = None) -> Path:
    """Write ``index.html`` and one page per function into ``directory``; returns the index path.
    ``kinds``: kind name -> ``{"explanation", "hint"}`` (the JSON's ``graph_breaks_by_kind``)."""
    out = Path(directory).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    ranked = sorted(report.functions, key=lambda f: f.badness(), reverse=True)
    pages = {id(f): f"f{i}.html" for i, f in enumerate(ranked)}
    for f in ranked:
        page = pages[id(f)]
        code_page = _code_page_name(page) if f.code else None
        (out / page).write_text(_function_page(f, kinds or {}, code_page), encoding="utf-8")
        if code_page:
            (out / code_page).write_text(_code_page(f, page), encoding="utf-8")
    index = out / "index.html"
    index.write_text(_index_page(report, ranked, pages), encoding="utf-8")
    return index


def load_kinds(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {k["kind"]: k for k in data.get("graph_breaks_by_kind", ()) if isinstance(k, dict) and "kind" in k}


def line_state(f: FunctionReport) -> str:
    """How the function's lines ran: ``cold``, ``eager`` or ``compiled`` (breaks are marked per line)."""
    if f.only_cold:
        return "cold"
    if not f.captures:
        return "eager"
    return "compiled"


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")


def _index_page(report: RunReport, ranked: list[FunctionReport], pages: dict[int, str]) -> str:
    head = "".join(f"<p>{html.escape(line)}</p>" for line in report.headline().splitlines())
    rows = []
    for f in ranked:
        cells = [f'<td><a href="{pages[id(f)]}">{html.escape(f.qualname)}</a></td>', f"<td>{html.escape(f.where)}</td>"]
        cells += [f'<td class="num">{n}</td>' for n in (f.calls, f.hot_eager_calls, len(f.breaks), len(f.recompiles))]
        cells.append(f'<td class="{line_state(f)}">{html.escape(f.status())}</td>')
        rows.append(f'<tr class="function">{"".join(cells)}</tr>')
    table = ("<table id=\"functions\"><thead><tr><th>function</th><th>where</th><th>calls</th><th>eager</th>"
             "<th>breaks</th><th>recompiles</th><th>status</th></tr></thead><tbody>\n"
             + "\n".join(rows) + "\n</tbody></table>")
    return _page("autograph run report", f"<h1>autograph run report</h1>{head}{LEGEND}{table}")


def _code_page_name(page: str) -> str:
    return page[:-len(".html")] + ".code.html"


def _anchor(i: int, part: str) -> str:
    return f"entry{i}-{part}"


def _code_links(f: FunctionReport, code_page: str) -> str:
    """Per cache entry, links to its guards, transformed code and graphs on the code page."""
    items = []
    for i, entry in enumerate(f.code):
        links = [f'<a href="{code_page}#{_anchor(i, "guards")}">guards ({len(entry.guards)})</a>']
        if entry.transformed:
            links.append(f'<a href="{code_page}#{_anchor(i, "transformed")}">transformed code</a>')
        links += [f'<a href="{code_page}#{_anchor(i, "graph-" + name)}">graph {html.escape(name)} ({ops} ops)</a>'
                  for name, ops, _ in entry.graphs]
        items.append(f"<li>cache entry {i}: " + ", ".join(links) + "</li>")
    return "<h2>What runs</h2><ul class=\"code-links\">" + "".join(items) + "</ul>"


def _code_page(f: FunctionReport, page: str) -> str:
    """Every cache entry's guards (plain words, then the generated check), transformed code and graphs."""
    title = f"{f.qualname}: what runs"
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p><a href="{page}">the function</a> · <a href="index.html">all functions</a></p>']
    for i, entry in enumerate(f.code):
        body.append(f"<h2>Cache entry {i}</h2>")
        words = "".join(f"<li>{html.escape(w)}</li>" for w in entry.guards) or "<li>(none)</li>"
        body.append(f'<h3 id="{_anchor(i, "guards")}">Guards</h3><ul>{words}</ul>'
                    f'<details><summary>the generated check</summary><pre class="code">'
                    f"{html.escape(entry.guard_check)}</pre></details>")
        if entry.transformed:
            body.append(f'<h3 id="{_anchor(i, "transformed")}">Transformed code</h3>'
                        f'<pre class="code">{html.escape(entry.transformed)}</pre>')
        for name, ops, code in entry.graphs:
            body.append(f'<h3 id="{_anchor(i, "graph-" + name)}">Graph {html.escape(name)} ({ops} ops)</h3>'
                        f'<pre class="code">{html.escape(code)}</pre>')
    return _page(title, "\n".join(body))


def _function_page(f: FunctionReport, kinds: dict[str, dict[str, str]], code_page: str | None = None) -> str:
    title = f"{f.qualname} ({f.where})"
    facts = [("calls", f.calls), ("cache hits", f.hits), ("captures", f.captures), ("eager calls", f.eager_calls),
             ("recompiles", len(f.recompiles)), ("graph breaks", len(f.breaks)), ("ops in graphs", f.ops_in_graphs),
             ("status", f.status())]
    body = [f"<h1>{html.escape(title)}</h1>", '<p><a href="index.html">all functions</a></p>', LEGEND,
            "<table>" + "".join(f"<tr><th>{k}</th><td>{html.escape(str(v))}</td></tr>" for k, v in facts) + "</table>"]
    if f.recompiles:
        body.append("<h2>Recompiles</h2><ul>" + "".join(
            f"<li>guard failed: <code>{html.escape(g)}</code> ({html.escape(why)})</li>" for g, why in f.recompiles)
            + "</ul>")
    if f.eager_reasons and f.eager_calls:
        body.append("<h2>Calls that ran the original code</h2><ul>" + "".join(
            f"<li>{html.escape(r)} ×{n}</li>" for r, n in f.eager_reasons) + "</ul>")
    if code_page:
        body.append(_code_links(f, code_page))
    body.append(_source(f, kinds))
    return _page(title, "\n".join(body))


def _function_lines(filename: str, first: int) -> list[tuple[int, str]]:
    """The source lines of the function starting at ``first``: up to the next line indented no
    deeper than its ``def`` (decorators and blank lines at the end left out)."""
    linecache.checkcache(filename)
    lines = linecache.getlines(filename)
    if not lines or not 1 <= first <= len(lines):
        return []
    start = first - 1
    indent = len(lines[start]) - len(lines[start].lstrip())
    out = [(first, lines[start].rstrip("\n"))]
    for i in range(start + 1, len(lines)):
        text = lines[i].rstrip("\n")
        if text.strip() and len(text) - len(text.lstrip()) <= indent and not text.lstrip().startswith((")", "]")):
            break
        out.append((i + 1, text))
    while len(out) > 1 and not out[-1][1].strip():
        out.pop()
    return out


def _source(f: FunctionReport, kinds: dict[str, dict[str, str]]) -> str:
    lines = _function_lines(f.filename, f.lineno)
    if not lines:
        return f"<p>(the source of {html.escape(f.filename)} is not available)</p>"
    state = line_state(f)
    breaks: dict[int, list[Any]] = {}
    for b in f.breaks:
        if b.filename == f.filename and b.lineno is not None:
            breaks.setdefault(b.lineno, []).append(b)
    out = []
    for number, text in lines:
        here = breaks.get(number)
        css = "break" if here else state
        out.append(f'<span class="line {css}" id="L{number}" data-line="{number}">{number:5d}  {html.escape(text)}</span>')
        seen = set()
        for b in here or ():
            if (b.kind, b.reason) in seen:
                continue
            seen.add((b.kind, b.reason))
            hint = kinds.get(b.kind, {}).get("hint", "")
            note = f"graph break [{b.kind}]: {b.reason}" + (f"\nwhat to do: {hint}" if hint else "")
            out.append(f'<span class="note">{html.escape(note)}</span>')
    return '<h2>Source</h2><pre class="source">' + "".join(out) + "</pre>"
