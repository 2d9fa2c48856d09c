"""Graph breaks of the training programs' steps under ``python -m autograph run`` (issue 26).

``clip_grad_norm_(model.parameters(), ...)`` costs no break (``parameters()`` is walked at capture
time, its ``(device, dtype)`` grouping answered there: families/tensor_grouping.py);
``loss.backward()``, ``opt.step()``, ``sched.step()`` and ``opt.zero_grad()`` at the end of a
step are made after the graph with no break (engine/deferred_breaks.py), unless code the tail
rule refuses follows them (``clip_grad_norm_`` after ``backward()``: the break stays at
``backward()``; ``return loss.detach()`` of the loss ``backward()`` was given: one break after
them); a list of the gradients of ``model.parameters()`` costs none (parameters and
their ``.grad`` are graph inputs), and ``model.train()`` before the loss does not split the graph
at ``cross_entropy``. Each run prints what plain Python prints, bit for bit, and warns nothing
plain Python does not.
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


def _run(package: str, tmp_path: Path, hooked: bool) -> tuple[tuple[str, set], dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]), AUTOGRAPH_CONFIG="")
    report = tmp_path / f"{package}.json"
    command = [sys.executable, "-m", package]
    if hooked:
        env.update(AUTOGRAPH_PACKAGES=package, AUTOGRAPH_REPORT=str(report))
        command = [sys.executable, "-m", "autograph", "run", "-m", package]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    warned = {line.split("Warning:", 1)[1].strip() for line in result.stderr.splitlines() if "Warning:" in line}
    return (result.stdout, warned), json.loads(report.read_text()) if hooked else {}


def _breaks(report: dict, function: str) -> list[tuple[str, str]]:
    """``(kind, reason)`` of the breaks of ``function`` and its resume functions."""
    return [(b["kind"], b["reason"]) for f in report["functions"]
            if f["qualname"] == function or f["qualname"].startswith(function + ".__resume_at_")
            for b in f["graph_breaks"]]


@pytest.fixture(params=["mlp_sgd", "cnn_adamw", "transformer_amp", "eval_loop"])
def program(request, tmp_path):
    want, _ = _run(request.param, tmp_path, hooked=False)
    got, report = _run(request.param, tmp_path, hooked=True)
    assert got[0] == want[0]
    assert got[1] <= want[1], got[1] - want[1]  # no warning of the hook's own
    return request.param, report


def test_training_step_breaks(program):
    package, report = program
    if package == "mlp_sgd":
        assert _breaks(report, "train_step") == []  # backward() and opt.step() run after the graph
    elif package == "cnn_adamw":
        reasons = [reason for _, reason in _breaks(report, "train_step")]
        # loss.backward(): clip_grad_norm_, opt.step() and sched.step() are the resume's one graph
        assert len(reasons) == 1 and "backward" in reasons[0], reasons
    elif package == "transformer_amp":
        reasons = [reason for _, reason in _breaks(report, "apply_step")]
        assert not any("parameters()" in r or "generator" in r or "`.grad`" in r for r in reasons), reasons
        assert len(reasons) == 1 and "all(" in reasons[0], reasons  # the `all(...)` of tensor values
        assert _breaks(report, "micro_step") == []  # the scaled loss's backward() runs after the graph
    else:
        # backward() and opt.step() run after the graph, then `return loss.detach()` in Python
        assert [kind for kind, _ in _breaks(report, "train_step")] == ["after-deferred-call"]
        # evaluate: `.item()` of the loss (2 captures); checkpoint(): I/O that runs in Python (8)
        total = sum(len(f["graph_breaks"]) for f in report["functions"])
        assert total == 11, [(f["qualname"], f["graph_breaks"]) for f in report["functions"]]
