"""The run report: per-function tables and the same data as JSON (--report=PATH)."""
import io
import json
import types

import torch

import autograph
from autograph.explain.report import print_report, report
from tests.explain import seeds


def _run_with_recompile():
    f = autograph.compile(seeds.toy_example, backend="eager")
    a, b = torch.linspace(-1, 1, 10), -torch.ones(10)
    for _ in range(3):
        f(a, b)
    f(torch.ones(4), torch.ones(4))  # new shape: the size guard of `a` fails -> recompile
    return f


def test_function_report_counts():
    _run_with_recompile()
    rep = report()
    top = next(r for r in rep.functions if r.qualname == "toy_example")
    assert (top.calls, top.hits, top.captures, top.cache_entries) == (4, 2, 2, 2)
    assert len(top.recompiles) == 1
    guard, words = top.recompiles[0]
    assert guard.startswith("___check_tensor(a, torch.float32, 'cpu', (10,), (1,)")
    assert words.startswith("a: Tensor float32 cpu size (10,)")
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    assert [(b.where, b.reason.split(" (")[0]) for b in top.breaks] == \
        [(f"seeds.py:{line}", "data-dependent branch on a tensor value")] * 2
    assert top.ops_in_graphs == 10 and top.torch_call_share is None
    assert top.capture_seconds > 0
    resumes = [r for r in rep.functions if r.resume_of == "toy_example"]
    assert resumes and all(r.qualname.startswith("toy_example.__resume_at_") for r in resumes)


def test_text_table_per_function():
    _run_with_recompile()
    text = str(report())
    assert text.startswith("autograph run report: ")
    first = seeds.toy_example.__code__.co_firstlineno
    assert f"| toy_example (seeds.py:{first})" in text
    for row in ("| calls                 | 4", "| cache hits            | 2", "| captures              | 2",
                "| recompiles            | 1", "| torch calls in graphs | n/a", "| graph breaks          | 2"):
        assert row in text, row
    assert "guard failed: ___check_tensor(a, torch.float32, 'cpu', (10,), (1,)" in text
    assert "— resume function of toy_example" in text
    line = seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    # both entries break at the same place: one line, counted
    assert f"| data-dependent branch on a tensor value (`if b.sum() < 0:`, seeds.py:{line}) ×2 " in text


def test_print_report_writes_json_when_report_is_a_path(tmp_path):
    _run_with_recompile()
    path = tmp_path / "sub" / "report.json"
    stream = io.StringIO()
    print_report(types.SimpleNamespace(report=path), stream=stream)
    data = json.loads(path.read_text())
    assert data["autograph_report"] == 1
    top = next(f for f in data["functions"] if f["qualname"] == "toy_example")
    assert top["calls"] == 4 and top["cache_hits"] == 2 and top["captures"] == 2
    assert top["recompiles"][0]["guard"].startswith("___check_tensor(a,")
    assert top["graph_breaks"][0]["filename"] == seeds.__file__
    assert top["graph_breaks"][0]["lineno"] == seeds.line_of(seeds.toy_example, "if b.sum() < 0:")
    assert top["torch_call_share"] is None and data["not_measured"]
    assert data["totals"]["functions"] == len(data["functions"])
    out = stream.getvalue()
    assert "| toy_example (seeds.py:" in out and f"report written to {path}" in out


def test_print_report_true_prints_only(tmp_path, capsys):
    _run_with_recompile()
    print_report(types.SimpleNamespace(report=True))
    captured = capsys.readouterr()
    assert captured.out == "" and "| calls " in captured.err


def test_empty_report():
    assert str(report()) == "autograph run report: no compiled function was called."
    assert report().as_dict()["functions"] == []


def test_cli_hands_over_to_print_report(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pkg = tmp_path / "reportpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import torch\n\ndef toy_example(a, b):\n    x = a / (torch.abs(a) + 1)\n"
        "    if b.sum() < 0:\n        b = b * -1\n    return x * b\n")
    script = tmp_path / "main.py"
    script.write_text("import torch\nfrom reportpkg.model import toy_example\n"
                      "for _ in range(3):\n    toy_example(torch.ones(5), -torch.ones(5))\nprint('done')\n")
    out_json = tmp_path / "r.json"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{root}{':' + str(tmp_path)}", "AUTOGRAPH_BACKEND": "eager",
           "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "autograph", "run", f"--report={out_json}", "--config",
                           str(_config(tmp_path)), str(script)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert "| reportpkg" not in proc.stdout and "toy_example (model.py:3)" in proc.stderr
    data = json.loads(out_json.read_text())
    top = next(f for f in data["functions"] if f["qualname"] == "toy_example")
    assert top["calls"] == 3 and top["captures"] == 1


def _config(tmp_path):
    cfg = tmp_path / "autograph.yaml"
    cfg.write_text("packages:\n  allow: [reportpkg]\nbackend: eager\n")
    return cfg
