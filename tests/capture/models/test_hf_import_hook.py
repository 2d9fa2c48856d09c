"""``AUTOGRAPH_PACKAGES=transformers.models.gpt2 python -m autograph run scripts/hf_infer.py``:
the import hook compiles GPT-2's functions with no code change, results equal eager, and the
run report lists the compiled function."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]


def test_gpt2_through_the_import_hook(tmp_path):
    report = tmp_path / "report.json"
    env = dict(os.environ, AUTOGRAPH_PACKAGES="transformers.models.gpt2", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "autograph", "run", f"--report={report}", "scripts/hf_infer.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gpt2: OK" in proc.stdout
    data = json.loads(report.read_text())
    entries = [f for f in data["functions"] if f["qualname"] == "GPT2LMHeadModel.forward"]
    assert len(entries) == 1, [f["qualname"] for f in data["functions"]]
    entry = entries[0]
    assert entry["captures"] == 1 and entry["graph_breaks"] == [] and not entry["errors"], entry
    assert entry["ops_in_graphs"] > 50
    assert entry["cache_hits"] >= 2  # later calls reuse the compiled entry
