"""The benchmark workloads (``autograph.testing.programs``) and ``scripts/bench_programs.py --smoke``."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch

import autograph
from autograph.testing.programs import WORKLOADS
from autograph.testing.programs.workloads import infer_step, train_step

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("bench_programs", ROOT / "scripts" / "bench_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_each_workload_trains_and_infers_the_same_under_autograph(name):
    w = WORKLOADS[name]
    plain, plain_opt, batch = w.build(seed=1)
    model, opt, _ = w.build(seed=1)
    compiled = autograph.compile(model, backend="eager")
    try:
        for _ in range(2):
            expected = train_step(w, plain, plain_opt, batch)
            got = train_step(w, compiled, opt, batch)
            assert math.isfinite(got)
            assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)
        torch.testing.assert_close(infer_step(w, compiled, batch), infer_step(w, plain, batch))
    finally:
        autograph.reset()


def test_the_bench_child_reports_every_number():
    result = _script()._child("gpt", "infer", "eager", steps=2, settle_seconds=10)
    for key in ("first_step_s", "until_steady_s", "steady_ms", "twin_steady_ms", "ratio_to_plain", "peak_rss_mb"):
        assert result[key] > 0 or key == "until_steady_s", key
    autograph.reset()


def test_the_smoke_run_prints_a_table(capsys):
    assert _script().main(["--smoke", "--runs", "bert:infer:plain"]) == 0
    out = capsys.readouterr().out
    assert "| bert | infer | plain |" in out and "cores" in out


def test_the_training_programs_of_tests_programs_are_timed_against_a_plain_twin(capsys):
    assert _script().main(["--smoke", "--runs", "mlp_sgd:program:eager,cnn_adamw:program:plain"]) == 0
    out = capsys.readouterr().out
    assert "| mlp_sgd | program | eager |" in out and "| cnn_adamw | program | plain |" in out
