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


def test_the_bench_child_times_the_wrap_apart_from_the_first_step():
    result = _script()._child("gpt", "infer", "eager", steps=2, settle_seconds=10)
    assert result["wrap_s"] > 0
    assert result["wrap_and_first_step_s"] == pytest.approx(result["wrap_s"] + result["first_step_s"])
    autograph.reset()


def test_warm_starts_are_taken_in_turn_and_summed_up_by_their_medians(monkeypatch, capsys, tmp_path):
    script = _script()
    calls = []

    def fake_child(run, steps, settle, caches, timeout):
        calls.append((run, caches))
        n = len(calls)
        workload, mode, variant = run.split(":")
        return {"workload": workload, "mode": mode, "variant": variant, "wrap_s": 0.1 * n, "first_step_s": float(n),
                "wrap_and_first_step_s": 1.1 * n, "until_steady_s": float(n), "steady_ms": 1.0,
                "twin_steady_ms": 1.0, "ratio_to_plain": 1.0, "peak_rss_mb": 1.0}

    monkeypatch.setattr(script, "_run_child", fake_child)
    runs = "gpt:infer:inductor,gpt:infer:plain,gpt:infer:compile"
    assert script.main(["--runs", runs, "--warm-repeats", "3", "--json", str(tmp_path / "r.json")]) == 0
    order = [run for run, _ in calls]
    assert order == ["gpt:infer:inductor", "gpt:infer:plain", "gpt:infer:compile"] + \
        ["gpt:infer:inductor", "gpt:infer:compile"] * 3
    inductor_caches = {caches for run, caches in calls if run == "gpt:infer:inductor"}
    assert len(inductor_caches) == 1  # the warm starts reuse the cold run's caches
    import json

    results = json.loads((tmp_path / "r.json").read_text())
    assert results[0]["warm"]["first_step_s"] == 6.0  # calls 4, 6, 8
    assert results[2]["warm"]["first_step_s"] == 7.0  # calls 5, 7, 9
    assert len(results[0]["warm"]["starts"]) == 3 and "warm" not in results[1]
    assert "| gpt | infer | compile | 0.30 s | 3.00 s |" in capsys.readouterr().out


def test_a_failed_warm_start_is_left_out_of_the_medians():
    script = _script()
    summary = script.median_warm_start([{"first_step_s": 1.0, "wrap_s": 0.5}, {"error": "timed out"},
                                        {"first_step_s": 3.0, "wrap_s": 0.7}])
    assert summary["first_step_s"] == 2.0 and summary["wrap_s"] == pytest.approx(0.6)
    assert script.median_warm_start([{"error": "timed out"}])["error"] == "timed out"


def test_the_eval_loop_program_is_timed_too(capsys):
    assert _script().main(["--smoke", "--runs", "eval_loop:program:eager", "--warm-repeats", "0"]) == 0
    assert "| eval_loop | program | eager |" in capsys.readouterr().out


def test_no_warm_start_is_taken_with_zero_warm_repeats(monkeypatch, tmp_path):
    script = _script()
    calls = []

    def fake_child(run, steps, settle, caches, timeout):
        calls.append(run)
        workload, mode, variant = run.split(":")
        return {"workload": workload, "mode": mode, "variant": variant, "wrap_s": 0.1, "first_step_s": 1.0,
                "wrap_and_first_step_s": 1.1, "until_steady_s": 1.0, "steady_ms": 1.0,
                "twin_steady_ms": 1.0, "ratio_to_plain": 1.0, "peak_rss_mb": 1.0}

    monkeypatch.setattr(script, "_run_child", fake_child)
    assert script.main(["--runs", "gpt:infer:inductor", "--warm-repeats", "0", "--json", str(tmp_path / "r.json")]) == 0
    import json

    assert calls == ["gpt:infer:inductor"]
    assert "warm" not in json.loads((tmp_path / "r.json").read_text())[0]


def test_auto_against_torch_compile_is_timed_once_autos_graphs_have_settled(monkeypatch):
    from autograph.backends import background

    script = _script()
    monkeypatch.setattr(background, "HOT_CALLS", background.HOT_CALLS)  # the child sets them: restored after
    monkeypatch.setattr(background, "HOT_SECONDS", background.HOT_SECONDS)

    class Holder:
        state, calls = "pending", 0

        def describe(self):
            return self.state

    holder = Holder()

    def step():
        holder.calls += 1
        if holder.calls == 20:  # the background compile answers after a while
            holder.state = "inductor"

    monkeypatch.setattr(script, "_program_steps", lambda package, variant, cache: (step, lambda: None))
    monkeypatch.setattr(background, "graphs", lambda: [holder])
    result = script._child("mlp_sgd", "program", "auto_vs_compile", steps=2, settle_seconds=60)
    assert background.HOT_CALLS == 2  # asked for at once, as for `auto`
    assert result["versions"] == ["inductor"] and result["steps"] >= 20 + 40  # settled, then the steady steps


def test_side_by_side_times_every_variant_in_one_process_interleaved(monkeypatch):
    script = _script()
    order = []
    import autograph.testing.programs.workloads as workloads

    def infer(w, model, batch, real=workloads.infer_step):
        order.append(id(model))
        return real(w, model, batch)

    monkeypatch.setattr(workloads, "infer_step", infer)
    result = script._side_by_side("gpt", "infer", ["plain", "eager"], rounds=6, settle_seconds=10)
    autograph.reset()
    assert set(result["steady"]) == {"plain", "eager"}
    for s in result["steady"].values():
        assert 0 < s["q1_ms"] <= s["median_ms"] <= s["q3_ms"]
    timed = order[-12:]  # the 6 rounds: each variant once per round ...
    rounds = [tuple(timed[i:i + 2]) for i in range(0, 12, 2)]
    assert all(len(set(r)) == 2 for r in rounds)
    assert len(set(rounds)) == 2  # ... in a random order: a variant does not always follow the same one
    assert result["hook_graphs"] == result["dynamo_graphs"] == 1 and result["hook_ops"] == result["dynamo_ops"] > 0


def test_side_by_side_ratios_are_the_issues_two():
    steady = {v: {"median_ms": ms} for v, ms in (("plain", 2.0), ("auto", 1.05), ("inductor", 1.1), ("compile", 1.0))}
    for v, s in steady.items():
        s["q1_ms"] = s["median_ms"] / 2 if v == "compile" else s["median_ms"]
    ratios = _script().side_ratios(steady)
    assert ratios == {"auto_over_best": pytest.approx(1.05), "inductor_over_compile": pytest.approx(1.1),
                      "auto_over_best_q1": pytest.approx(2.1), "inductor_over_compile_q1": pytest.approx(2.2)}
    assert _script().side_ratios({"plain": {"median_ms": 2.0}, "auto": {"median_ms": 1.0}}) == {
        "auto_over_best": pytest.approx(0.5)}
