"""``autograph report r.json --html DIR``: pages parsed back (index worst first, each source line
marked compiled / break / eager / cold, the break's reason and hint inline)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from html.parser import HTMLParser
from pathlib import Path

from autograph.explain.html_report import write_html
from autograph.explain.report import BreakInfo, FunctionReport, RunReport

REPO = Path(__file__).resolve().parents[2]


class Page(HTMLParser):
    """Collects the index's function rows and the source page's marked lines and notes."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[str] = []
        self.lines: dict[int, str] = {}
        self.notes: list[str] = []
        self._in: tuple[str, int] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href", "").startswith("f"):
            self._in, self._text = ("row", 0), []
        elif tag == "span" and "line" in (a.get("class") or "").split():
            self.lines[int(a["data-line"])] = a["class"].split()[1]
        elif tag == "span" and a.get("class") == "note":
            self._in, self._text = ("note", 0), []

    def handle_data(self, data):
        if self._in:
            self._text.append(data)

    def handle_endtag(self, tag):
        if self._in and tag in ("a", "span"):
            (self.rows if self._in[0] == "row" else self.notes).append("".join(self._text))
            self._in = None


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text())
    return page


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "model.py"
    src.write_text(textwrap.dedent("""\
        import torch

        def good(x):
            return x + 1

        def broken(x):
            y = x * 2
            print("side effect <b>")
            return y

        def cold(x):
            return x
    """))
    return src


def _report(src: Path) -> RunReport:
    def fn(name, line, **kw):
        base = dict(qualname=name, filename=str(src), lineno=line, calls=5, hits=4, misses=1, eager_calls=0,
                    captures=1, cache_entries=1, recompiles=[], breaks=[], errors=[], ops_in_graphs=1,
                    capture_seconds=0.0, compile_seconds=0.0)
        base.update(kw)
        return FunctionReport(**base)

    return RunReport([
        fn("good", 3),
        fn("cold", 11, calls=1, captures=0, eager_calls=1, cold_calls=1),
        fn("broken", 6, breaks=[BreakInfo("print() is a side effect", str(src), 8, "side-effect")] * 2),
    ], backend="eager")


def test_index_is_worst_first_and_sources_are_marked(tmp_path):
    src = _source(tmp_path)
    index = write_html(_report(src), tmp_path / "html", {"side-effect": {"hint": "move the print out"}})
    assert parse(index).rows == ["broken", "good", "cold"]
    broken = parse(tmp_path / "html" / "f0.html")
    assert broken.lines == {6: "compiled", 7: "compiled", 8: "break", 9: "compiled"}
    assert broken.notes == ["graph break [side-effect]: print() is a side effect\nwhat to do: move the print out"]
    assert "side effect &lt;b&gt;" in (tmp_path / "html" / "f0.html").read_text()  # source is escaped
    assert parse(tmp_path / "html" / "f1.html").lines == {3: "compiled", 4: "compiled"}
    assert parse(tmp_path / "html" / "f2.html").lines == {11: "cold", 12: "cold"}


def test_cli_writes_the_pages_from_a_saved_report(tmp_path):
    src = _source(tmp_path)
    (tmp_path / "r.json").write_text(_report(src).to_json())
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run([sys.executable, "-m", "autograph", "report", "r.json", "--html", "out"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert parse(tmp_path / "out" / "index.html").rows == ["broken", "good", "cold"]
    assert json.loads((tmp_path / "r.json").read_text())["autograph_report"] == 1


class Anchors(HTMLParser):
    """Every link target and every element id of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if a.get("id"):
            self.ids.add(a["id"])


def anchors(path: Path) -> Anchors:
    page = Anchors()
    page.feed(path.read_text())
    return page


def test_function_pages_link_to_guards_transformed_code_and_graphs(tmp_path):
    import torch

    import autograph
    from autograph.explain.report import report

    def step(x):
        y = torch.relu(x) * 2
        print("between the graphs")
        return y.sum()

    compiled = autograph.compile(step, backend="eager")
    compiled(torch.randn(4))
    saved = tmp_path / "r.json"
    saved.write_text(report().to_json())
    rep = RunReport.load(saved)  # from the saved JSON, as `autograph report r.json --html` does
    mine = next(f for f in rep.functions if f.qualname.endswith("step"))
    assert mine.code and mine.code[0].graphs and mine.code[0].transformed
    write_html(RunReport([mine]), tmp_path / "html")
    links = [h for h in anchors(tmp_path / "html" / "f0.html").hrefs if "#" in h]
    code_page = tmp_path / "html" / "f0.code.html"
    targets = anchors(code_page).ids
    assert {h.split("#")[0] for h in links} == {"f0.code.html"}
    assert any("guards" in h for h in links) and any("transformed" in h for h in links)
    assert any("graph-" in h for h in links)
    assert {h.split("#")[1] for h in links} <= targets  # every link lands on its section
    text = code_page.read_text()
    assert "relu" in text and "Transformed code" in text


def _browser() -> str | None:
    import shutil

    for name in ("chromium-headless-shell", "chromium", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.mark.slow
@pytest.mark.skipif(_browser() is None, reason="needs headless Chromium (Debian: apt-get install "
                                               "chromium-headless-shell; .ci/run installs it)")
def test_the_demo_report_renders_in_a_browser(tmp_path):
    """The demo's saved report as HTML, rendered by headless Chromium: the screenshots are not blank."""
    from PIL import Image

    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env["PYTHONPATH"] = str(REPO)
    run = subprocess.run([sys.executable, "-m", "autograph", "run", "--config", str(REPO / "config/autograph.yaml"),
                          f"--report={tmp_path / 'r.json'}", str(REPO / "examples/train.py")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    pages = subprocess.run([sys.executable, "-m", "autograph", "report", "r.json", "--html", "html"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=120)
    assert pages.returncode == 0, pages.stderr
    for page in ("index.html", "f0.html", "f0.code.html"):
        shot = tmp_path / f"{page}.png"
        subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                        "--window-size=1200,900", (tmp_path / "html" / page).as_uri()],
                       capture_output=True, timeout=120)
        assert shot.exists(), f"no screenshot of {page}"
        colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 8, f"{page} rendered blank ({colours})"
