"""The report's summary (one row per function, worst first, ≤ 100 columns), its styles, one
file per rank, and re-rendering a saved report (``autograph report r.json [--all]``)."""
from __future__ import annotations

import io
import json

import pytest

from autograph.explain import report as report_module
from autograph.explain.report import BreakInfo, FunctionReport, RunReport, print_report, rank_path
from autograph.settings import Settings


def _function(name: str, **kw) -> FunctionReport:
    base = dict(qualname=name, filename=f"/src/{name}.py", lineno=3, calls=10, hits=7, misses=3, eager_calls=0,
                captures=1, cache_entries=1, recompiles=[], breaks=[], errors=[], ops_in_graphs=5,
                capture_seconds=0.1, compile_seconds=0.01, cold_calls=2, compile_threshold=3)
    base.update(kw)
    return FunctionReport(**base)


def _report() -> RunReport:
    long_name = "AVeryLongModelName.with_a_rather_long_method_name_that_goes_on_and_on"
    return RunReport([
        _function("fine"),
        _function("cold_one", calls=1, captures=0, eager_calls=1, cold_calls=1,
                  eager_reasons=[("cold, not compiled: below compile_threshold (3)", 1)]),
        _function("recompiling", recompiles=[("___check_tensor(a, ...)", "a: size changed")] * 2),
        _function("breaking", breaks=[BreakInfo("print() " + "x" * 300, "/src/breaking.py", 7, "side-effect")]),
        _function("fell_back", captures=0, eager_calls=9, cold_calls=2, eager_reason="capture failed: boom",
                  eager_reasons=[("capture failed: boom", 7)]),
        _function(long_name),
    ], backend="eager")


@pytest.fixture(autouse=True)
def _this_report(monkeypatch):
    monkeypatch.setattr(report_module, "report", lambda settings=None: _report())
    monkeypatch.delenv("RANK", raising=False)


def test_summary_is_worst_first_and_fits_100_columns():
    text = _report().summary("autograph report r.json --all")
    lines = text.splitlines()
    assert lines[0] == "autograph: 6 functions, 51 calls, 4 captures, 2 recompiles, 1 graph break"
    assert lines[1] == "backend: eager; capture 0.60 s, compile 0.06 s"
    assert max(len(line) for line in lines) <= 100, text
    rows = [line.split()[0] for line in lines[3:-2]]
    assert rows[:3] == ["fell_back", "breaking", "recompiling"], text
    assert "fine" in rows and "cold_one" not in rows
    assert lines[-2].startswith("1 more not compiled (cold: warm-up calls only): cold_one")
    assert lines[-1] == "details: `autograph report r.json --all`"
    assert "side-effect, line 7" in text and "capture failed: boom" in text and "recompiled: a: size" in text


def test_saved_report_renders_the_same(tmp_path):
    rep = _report()
    path = rep.write_json(tmp_path / "r.json")
    again = RunReport.load(path)
    assert again.summary("x") == rep.summary("x")
    assert str(again) == str(rep)


def test_quiet_style_writes_the_json_and_prints_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    stream = io.StringIO()
    print_report(Settings(report=tmp_path / "r.json", report_style="quiet"), stream=stream)
    assert stream.getvalue() == ""
    assert json.loads((tmp_path / "r.json").read_text())["autograph_report"] == 1


def test_summary_style_ends_with_the_command_for_details(tmp_path, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.chdir(tmp_path)
    stream = io.StringIO()
    print_report(Settings(report=tmp_path / "r.json"), stream=stream)
    assert stream.getvalue().rstrip().splitlines()[-1] == "details: `autograph report r.json --all`"


def test_report_true_keeps_the_json_in_the_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    stream = io.StringIO()
    print_report(Settings(report=True, cache_dir=tmp_path / "cache"), stream=stream)
    assert (tmp_path / "cache" / "reports" / "last.json").is_file()
    assert "reports/last.json --all`" in stream.getvalue()


def test_one_file_and_labelled_lines_per_rank(tmp_path, monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    stream = io.StringIO()
    print_report(Settings(report=tmp_path / "r.json"), stream=stream)
    assert (tmp_path / "r.rank1.json").is_file() and not (tmp_path / "r.json").exists()
    assert all(line.startswith("[rank1] ") for line in stream.getvalue().splitlines())
    assert rank_path("out/r.json", None).name == "r.json"
