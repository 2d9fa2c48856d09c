"""Issue 26's ``mypkg/train.py`` run as the issue ran it: ``AUTOGRAPH_PACKAGES=mypkg python run.py``.

Done when: ``train_step`` compiles from its third call (default ``compile_threshold``), with the
forward and the loss as one graph (``MLP.forward`` inlined, no graph of its own; ``loss.backward()``
and ``opt.step()`` made after it), its output
bit-identical to plain Python, and no row for code outside the selection.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def _run(tmp_path: Path, hooked: bool) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    if hooked:
        env.update(AUTOGRAPH_PACKAGES="mypkg", AUTOGRAPH_CONFIG="", AUTOGRAPH_REPORT=str(tmp_path / "report.json"))
    (tmp_path / "run.py").write_text("from mypkg.train import main\nmain()\n")
    result = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_train_step_compiles_from_its_third_call_with_forward_and_loss_in_one_graph(tmp_path):
    want = _run(tmp_path, hooked=False)
    assert _run(tmp_path, hooked=True) == want
    rows = {f["qualname"]: f for f in json.loads((tmp_path / "report.json").read_text())["functions"]}
    assert all(str(f["filename"]).startswith(str(HERE / "mypkg")) for f in rows.values()), list(rows)
    step = rows["train_step"]
    assert (step["cold_calls"], step["captures"], step["cache_hits"]) == (2, 1, step["calls"] - 3)
    chain = [f for name, f in rows.items() if name.startswith("train_step")]
    graphs = [f for f in chain if f["ops_in_graphs"]]
    assert len(graphs) == 1 and graphs[0]["ops_in_graphs"] >= 4  # linear, relu, linear, cross_entropy
    # loss.backward() and opt.step() are made after the graph, with no break (engine/deferred_breaks.py)
    assert graphs[0]["qualname"] == "train_step" and graphs[0]["graph_breaks"] == []
    assert rows["MLP.forward"]["captures"] == 0  # inlined into train_step's graph
    assert all(not f["recompiles"] and not f["errors"] for f in rows.values())
