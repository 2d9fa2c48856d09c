"""Typical training scripts with the *training* package selected (issue 26, "Done when").

Each package under ``tests/programs/`` (``mlp_sgd``, ``cnn_adamw``, ``transformer_amp``,
``eval_loop``) is a user's training program: ``main()`` loops over a ``train_step`` with an
optimizer (and a scheduler, clipping, AMP with loss scaling and accumulation, an eval loop
under ``no_grad`` with ``train()``/``eval()`` switches, a ``DataLoader``, ``state_dict``
checkpoints). It runs once plainly and under ``python -m autograph run -m <pkg>`` with
``AUTOGRAPH_PACKAGES=<pkg>`` for every ``compile_threshold`` from 1 to 5, and once with
``AUTOGRAPH_VERIFY=strict``. Every run prints the same losses and parameter hashes bit for
bit (no optimizer step, RNG draw or other side effect runs twice or is skipped on the
capturing call); the report has rows for the program's own functions only; no recompile
warning; verify finds nothing.
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
PROGRAMS = ["mlp_sgd", "cnn_adamw", "transformer_amp", "eval_loop"]


def _run(package: str, hooked: bool, tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, dict]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    full.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]), AUTOGRAPH_CONFIG="")
    report = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.json"
    if hooked:
        full.update(AUTOGRAPH_PACKAGES=package, AUTOGRAPH_REPORT=str(report), **env)
        command = [sys.executable, "-m", "autograph", "run", "-m", package]
    else:
        command = [sys.executable, "-m", package]
    result = subprocess.run(command, cwd=tmp_path, env=full, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]
    return result, (json.loads(report.read_text()) if hooked else {})


@pytest.fixture(scope="module", params=PROGRAMS)
def plain(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    result, _ = _run(request.param, False, tmp)
    assert "loss" in result.stdout and "param" in result.stdout or "ckpt" in result.stdout
    return request.param, tmp, result.stdout


def _check_report(package: str, result: subprocess.CompletedProcess, report: dict) -> None:
    outside = [f["qualname"] for f in report["functions"]
               if not str(f["filename"]).startswith(str(HERE / package))]
    assert outside == [], f"rows for code outside the selection: {outside}"
    assert "RecompileLimitWarning" not in result.stderr
    assert all(not f["errors"] for f in report["functions"]), [f["errors"] for f in report["functions"]]


@pytest.mark.parametrize("threshold", [1, 2, 3, 4, 5])
def test_bit_identical_for_every_compile_threshold(plain, threshold):
    package, tmp, want = plain
    result, report = _run(package, True, tmp, AUTOGRAPH_COMPILE_THRESHOLD=str(threshold))
    assert result.stdout == want
    _check_report(package, result, report)
    assert sum(f["captures"] for f in report["functions"]) >= 1  # something compiled


def test_verify_strict_runs_clean(plain):
    package, tmp, want = plain
    result, report = _run(package, True, tmp, AUTOGRAPH_COMPILE_THRESHOLD="1", AUTOGRAPH_VERIFY="strict")
    assert result.stdout == want
    assert "VerifyMismatchWarning" not in result.stderr
    assert all(not f["verify_mismatches"] for f in report["functions"])
    assert sum(f["verified_calls"] for f in report["functions"]) >= 1
    _check_report(package, result, report)
