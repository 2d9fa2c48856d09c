"""scripts/gpu_check.py (issue 28): its --dry-run runs every stage on the CPU with the
interpreter, writes its JSON, exits 0, and never needs pydantic (the GPU machine has none)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.triton

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gpu_check.py"


def _env(tmp_path: Path) -> dict[str, str]:
    blocker = tmp_path / "no-pydantic" / "pydantic"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('pydantic is not on the GPU machine')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    env["PYTHONPATH"] = os.pathsep.join([str(blocker.parent), str(ROOT)])
    return env


def test_dry_run_runs_every_stage_and_writes_its_json(tmp_path):
    pytest.importorskip("triton")
    out = tmp_path / "check.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--dry-run", "--ops", "2", "--out", str(out)],
                          cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["meta"]["dry_run"] and report["meta"]["torch"] == torch.__version__
    lowerings, timings = report["stages"]["lowerings"], report["stages"]["timings"]
    assert lowerings["status"] == "done" and timings["status"] == "done", (lowerings, timings)
    assert lowerings["results"] and all(r["status"] == "ok" for r in lowerings["results"]), lowerings["results"]
    assert {r["values"] for r in lowerings["results"]} == {"edge", "random"}
    assert all(r["exact"] is True and r["within_tolerance"] is True for r in lowerings["results"])
    assert lowerings["summary"]["exact"] == lowerings["summary"]["within_tolerance"] == len(lowerings["results"])
    names = [r["workload"] for r in timings["results"]]
    for kind in ("pointwise chain", "softmax", "layernorm", "rmsnorm", "gelu mlp", "gpt2 block fwd ", "gpt2 block fwd+bwd"):
        assert any(kind in n for n in names), (kind, names)
    for row in timings["results"]:
        for label in ("eager", "autograph"):
            assert row[label]["status"] == "ok", (row["workload"], label, row[label])
            assert row[label]["median_ms"] > 0 and row[label]["cold_compile_s"] >= 0
            assert row[label]["back_to_back_ms_per_call"] > 0 and row[label]["back_to_back_calls"] >= 1
        assert row["autograph"]["max_diff_rel_to_max_vs_eager"] < 0.05, row  # bf16, eager rounds every op
    assert "| workload |" in done.stdout and "back-to-back ms/call" in done.stdout


def _script_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_check_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tolerance_verdict_separates_last_ulp_and_flushed_denormals_from_wrong_values():
    check = _script_module()
    one_ulp = torch.tensor([0.4285714328289032, 1.0]).nextafter(torch.tensor([1.0, 2.0]))
    assert check.beyond_tolerance(one_ulp, torch.tensor([0.4285714328289032, 1.0])) is None
    assert check.beyond_tolerance(torch.tensor([0.0]), torch.tensor([1e-40])) is None  # a flushed denormal
    assert check.beyond_tolerance(torch.tensor([0.0]), torch.tensor([-0.0])) is None  # sign of zero
    assert "element 0" in check.beyond_tolerance(torch.tensor([float("inf")]), torch.tensor([1e20]))
    assert "element 1" in check.beyond_tolerance(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.001]))
    assert check.beyond_tolerance(torch.tensor([10]), torch.tensor([9])) is not None  # integers: exact
    half = torch.tensor([0.3], dtype=torch.float16)
    assert check.beyond_tolerance(half.nextafter(torch.tensor([1.0], dtype=torch.float16)), half) is None


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU path")
def test_without_a_gpu_it_says_so_and_exits_0(tmp_path):
    out = tmp_path / "check.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0
    assert "needs a CUDA GPU" in done.stdout
    assert "no CUDA device" in json.loads(out.read_text())["error"]


def test_a_failing_stage_is_recorded_and_the_next_stage_still_runs(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def broken(*args, **kwargs):
        raise RuntimeError("a stage that breaks")

    monkeypatch.setattr(module, "check_lowerings", broken)
    monkeypatch.setattr(module, "time_workloads", lambda report, stage, *a, **k: stage["results"].append({"workload": "w"}))
    out = tmp_path / "check.json"
    assert module.main(["--dry-run", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["stages"]["lowerings"]["status"] == "error"
    assert "a stage that breaks" in report["stages"]["lowerings"]["error"]
    assert report["stages"]["timings"] == {"status": "done", "results": [{"workload": "w"}],
                                           "seconds": report["stages"]["timings"]["seconds"]}
    # main() may run inside another program (this test run): its watchdog ends with it and never
    # calls os._exit later (it did once, ending a whole pytest session with status 0)
    import threading
    import time
    deadline = time.monotonic() + 5
    while any("watchdog" in t.name for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any("watchdog" in t.name for t in threading.enumerate())


def test_gpu_profile_dry_run_lists_each_compilers_kernels(tmp_path):
    """scripts/gpu_profile.py, prepared on CPU for the GPU machine: the same workloads, one block
    of kernels per compiler (Inductor is left out of the dry run), no pydantic."""
    pytest.importorskip("triton")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu_profile.py"), "--dry-run", "--calls", "1",
                             "--rows", "2", "--workload", "softmax 64x"], env=_env(tmp_path), cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    heads = [line for line in result.stdout.splitlines() if line.startswith("== ")]
    assert [h.split(" / ")[1].split(":")[0] for h in heads] == ["eager", "autograph"]
    assert all("kernels per call" in h for h in heads)
