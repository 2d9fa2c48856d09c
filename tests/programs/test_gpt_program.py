"""A whole user program under the import hook (issue 16, "Done when").

``nanogpt/`` is shaped like a popular minimal GPT training repository: ``model.py`` (a GPT
whose constructor initialises weights through ``self.apply(self._init_weights)``,
``configure_optimizers``, ``get_num_params``, ``estimate_mfu(fwdbwd_per_iter, dt)``,
``generate`` under ``@torch.no_grad()``) and ``train.py`` (20 AdamW steps with dropout on,
an MFU estimate with a new float ``dt`` every step, ``generate`` with 3, 5 and 4 new tokens).
It runs once plainly and once with ``AUTOGRAPH_PACKAGES=model``, in fresh processes.
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
PROGRAM = Path(__file__).resolve().parent / "nanogpt"
STEPS = 20


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    full.update(PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                AUTOGRAPH_CONFIG="", **env)
    result = subprocess.run([sys.executable, "train.py", "--steps", str(STEPS)], cwd=PROGRAM, env=full,
                            capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stderr[-4000:]
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gpt")
    eager = _run(tmp)
    report = tmp / "report.json"
    hooked = _run(tmp, AUTOGRAPH_PACKAGES="model", AUTOGRAPH_REPORT=str(report))
    data = json.loads(report.read_text())
    return eager, hooked, {f["qualname"]: f for f in data["functions"]}


def _program_output(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith(("step ", "generated "))]


def test_losses_and_generated_tokens_are_bit_identical_to_eager(runs):
    eager, hooked, functions = runs
    lines = _program_output(eager)
    assert len([line for line in lines if line.startswith("step ")]) == STEPS
    assert _program_output(hooked) == lines  # losses as float.hex(): bit-identical, dropout on
    assert functions["GPT.forward"]["captures"] >= 1 and functions["GPT.forward"]["cache_hits"] >= STEPS - 3


def test_functions_called_once_are_never_captured(runs):
    _, _, functions = runs
    once = {name: f for name, f in functions.items() if f["calls"] == 1 and not f["resume_of"]}
    assert "GPT.configure_optimizers" in once
    tried = {name: (f["captures"], f["errors"]) for name, f in once.items() if f["captures"] or f["errors"]}
    assert tried == {}
    assert once["GPT.configure_optimizers"]["not_compiled"].startswith("cold, not compiled: called once")


def test_decorated_generate_is_labelled_with_its_own_line(runs):
    _, _, functions = runs
    generate = functions["GPT.generate"]
    assert generate["filename"] == str(PROGRAM / "model.py")
    source = (PROGRAM / "model.py").read_text().splitlines()
    assert source[generate["lineno"] - 1].strip() == "@torch.no_grad()"


def test_estimate_mfu_with_a_new_float_every_step_compiles_at_most_twice(runs):
    _, hooked, functions = runs
    mfu = functions["GPT.estimate_mfu"]
    assert mfu["captures"] <= 2 and mfu["calls"] == STEPS
    assert "GPT.estimate_mfu (" not in "".join(line for line in hooked.stderr.splitlines()
                                               if "RecompileLimitWarning" in line)


def test_no_recompile_limit_warning(runs):  # get_num_params' genexpr resume: guarded by code, not identity
    _, hooked, _ = runs
    assert "RecompileLimitWarning" not in hooked.stderr
