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


GENERATE = """
import sys, torch
from autograph.testing.models import build
model, inputs = build(sys.argv[1])
model.eval()
with torch.no_grad():
    out = model.generate(inputs["input_ids"][:1, :6], max_new_tokens=6, do_sample=False, pad_token_id=0)
print("tokens", out.tolist())
"""


@pytest.mark.parametrize("name", ["hf:llama", "hf:gpt2"])
def test_whole_transformers_package_selected_builds_and_generates_like_eager(tmp_path, name):
    """Selecting all of transformers instruments model construction, ``generate``'s decode loop
    and every forward: the tokens equal a plain run's and nothing fails (once: a RecursionError
    in ``post_init``, a SyntaxError from an enum member in generated code)."""
    script = tmp_path / "gen.py"
    script.write_text(GENERATE)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("AUTOGRAPH_PACKAGES", None)
    plain = subprocess.run([sys.executable, str(script), name], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr
    hooked = subprocess.run([sys.executable, "-m", "autograph", "run", str(script), name], cwd=ROOT,
                            env=dict(env, AUTOGRAPH_PACKAGES="transformers"), capture_output=True, text=True,
                            timeout=600)
    assert hooked.returncode == 0, hooked.stderr[-3000:]
    tokens = [line for line in plain.stdout.splitlines() if line.startswith("tokens")]
    assert tokens and tokens == [line for line in hooked.stdout.splitlines() if line.startswith("tokens")]
    assert "internal error" not in hooked.stderr and "RecompileLimitWarning" not in hooked.stderr, hooked.stderr[-3000:]
