"""scripts/coverage_report.py on a user model named by import path (fast: a tiny MLP)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[3]


class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 16)
        self.b = nn.Linear(16, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def tiny() -> tuple[nn.Module, dict]:
    torch.manual_seed(0)
    return TinyMLP(), {"x": torch.randn(2, 8)}


def _script():
    spec = importlib.util.spec_from_file_location("coverage_report", ROOT / "scripts" / "coverage_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_report_for_a_model_named_by_import_path(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    out = tmp_path / "cov.json"
    rc = _script().main(["--model", "test_coverage_report:tiny", "--iters", "2", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    rows = json.loads(out.read_text())
    assert [(r["mode"], r["graphs"], r["breaks"], r["correct"]) for r in rows] == \
        [("eval", 1, [], True), ("train", 1, [], True)]
    assert all(r["coverage"] == 1.0 and r["second_call_compiles"] == 0 for r in rows)
    assert "| test_coverage_report:tiny | eval" in text and "100.0% (" in text


def test_breaks_are_listed_with_their_source_line():
    script = _script()
    from autograph.testing.coverage import BreakInfo, Coverage
    c = Coverage("m", "eval", graphs=2, breaks=[BreakInfo("call to print()", "/x/y.py", 3, "print(x)")],
                 torch_calls_eager=10, torch_calls_outside=1, coverage=0.9, correct=True)
    text = script.render([c])
    assert "90.0% (9/10)" in text
    assert "- m (eval): call to print() — /x/y.py:3: `print(x)`" in text


class PrintingMLP(TinyMLP):
    def forward(self, x):
        h = torch.relu(self.a(x))
        print("hidden", tuple(h.shape))  # a graph break
        return self.b(h)


def printing() -> tuple[nn.Module, dict]:
    torch.manual_seed(0)
    return PrintingMLP(), {"x": torch.randn(2, 8)}


def test_a_real_break_is_measured_and_reported(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    out = tmp_path / "cov.json"
    rc = _script().main(["--model", "test_coverage_report:printing", "--iters", "2", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    rows = json.loads(out.read_text())
    assert all(r["correct"] and r["graphs"] == 2 for r in rows), rows
    assert "call to print()" in text and "print(\"hidden\"" in text
