"""Two processes on the gloo backend (``torchrun``), every distributed form compiled vs eager.

Each test launches ``tests/distributed/worker.py`` once under ``torch.distributed.run`` with a
free port and a timeout; the worker compares eager and compiled runs in each rank and writes
what it found, asserted here.  Slow (process start-up): they run in CI.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 600


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(tmp_path: Path, case: str, backend: str = "eager", *, launcher: list[str] | None = None,
            env: dict[str, str] | None = None) -> list[dict]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRAPH", "TORCH_LOGS"))}
    full["PYTHONPATH"] = os.pathsep.join([str(REPO), full.get("PYTHONPATH", "")])
    full.setdefault("TRITON_INTERPRET", "1")
    full["OMP_NUM_THREADS"] = "1"
    full["PYTHONFAULTHANDLER"] = "1"  # a crashing rank prints every thread's Python stack
    full.update(env or {})
    target = launcher or ["-m", "tests.distributed.worker"]
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
           f"--master_port={_free_port()}", *target, case, str(tmp_path), backend]
    proc = subprocess.run(cmd, cwd=REPO, env=full, capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0:  # pytest.fail keeps the whole message (an assert's repr is cut)
        pytest.fail(f"torchrun exited {proc.returncode}\n--- stdout\n{proc.stdout[-2000:]}\n"
                    f"--- stderr\n{proc.stderr[-6000:]}", pytrace=False)
    return [json.loads((tmp_path / f"{case}.rank{r}.json").read_text()) for r in range(2)]


ONE_GRAPH = ["allreduce_default", "allreduce_max", "funcol_allreduce_wait", "funcol_allreduce_nowait",
             "allgather_into_tensor", "funcol_allgather", "async_allreduce_wait", "broadcast", "rank_branch",
             "funcol_reduce_scatter", "reduce_scatter_tensor", "all_to_all_single", "funcol_unused",
             "funcol_wait_method", "funcol_returned"]


def _check_collectives(ranks: list[dict]) -> None:
    for rank in ranks:
        for name in ONE_GRAPH:
            r = rank[name]
            assert r["equal"], (name, r)
            assert (r["graphs"], r["breaks"]) == (1, 0), (name, r)
            assert r["captures"] == 1, (name, r)
            if name != "rank_branch":
                assert r["collective_nodes"] >= 2, (name, r)  # the collective and its wait_tensor
        barrier = rank["barrier_between"]  # the one form that demands a break
        assert barrier["equal"] and barrier["breaks"] == 1 and "barrier" in barrier["break_reasons"][0], barrier
        assert rank["average_gradients"] == {"equal": True, "replicas_agree": True}
        assert rank["gradients"] == {"in_place": True, "functional": True}


def test_collectives_eager_backend(tmp_path):
    _check_collectives(_launch(tmp_path, "collectives", "eager"))


@pytest.mark.triton
def test_collectives_triton_backend_keeps_them_as_extern_calls(tmp_path):
    pytest.importorskip("triton")
    ranks = _launch(tmp_path, "collectives", "triton")
    _check_collectives(ranks)
    for rank in ranks:
        for name in ONE_GRAPH:
            if name == "rank_branch":
                continue
            r = rank[name]
            assert not r["fallbacks"], (name, r)
            assert any(e.startswith("_c10d_functional.wait_tensor") for e in r["externs"]), (name, r)


def test_collectives_inductor_backend(tmp_path):
    _check_collectives(_launch(tmp_path, "collectives", "inductor"))


def test_compiled_ddp_equals_eager_ddp_with_any_bucket_size(tmp_path):
    for rank in _launch(tmp_path, "ddp"):
        for bucket in ("25", "0.01"):
            r = rank[bucket]
            assert r["losses_equal"] and r["weights_equal"], (bucket, r)
            assert (r["graphs"], r["breaks"], r["ops"]) == (1, 0, 5), (bucket, r)  # 3 linear + 2 relu
            assert r["inner_captures"] == 1, r
        assert rank["0.01"]["buckets"] > rank["25"]["buckets"] == 1
        for options in ("find_unused", "bucket_view"):  # with no_sync() accumulation steps
            assert rank[options] == {"losses_equal": True, "weights_equal": True}, (options, rank[options])


def test_compiled_ddp_with_the_inductor_backend(tmp_path):
    for rank in _launch(tmp_path, "ddp", "inductor"):
        for bucket in ("25", "0.01"):
            r = rank[bucket]
            assert r["losses_equal"] and r["weights_equal"], (bucket, r)
            assert (r["graphs"], r["breaks"]) == (1, 0), (bucket, r)


def test_fsdp2_hooks_run_around_compiled_block_forwards(tmp_path):
    for r in _launch(tmp_path, "fsdp"):
        assert r["losses_equal"] and r["weights_equal"], r
        assert r["states_equal"], r  # sharded/unsharded parameters after each forward as in eager
        assert r["block_ops"] > 0 and r["block_captures"] == 1, r  # one for every block (modules guarded by structure)
        assert r["root_ops"] >= 2, r  # input and output layers
        assert all("with hooks registered" in reason for reason in r["root_break_reasons"]), r
        assert r["root_break_kinds"] == ["module-hooks"], r
        for name, v in r["variants"].items():  # mixed precision, no reshard, two forwards per step
            assert v["losses_equal"] and v["weights_equal"] and v["states_equal"] and v["block_ops"] > 0, (name, v)


def test_torchrun_with_the_launcher_and_packages_compiles_the_model(tmp_path):
    ranks = _launch(tmp_path, "hook", launcher=["-m", "autograph", "run", "-m", "tests.distributed.worker"],
                    env={"AUTOGRAPH_PACKAGES": "tests.distributed.distmodels"})
    for r in ranks:
        assert r["losses_equal"] and r["weights_equal"], r
        assert r["forward_captures"] == 1 and r["forward_ops"] == 5, r


def test_fsdp2_with_the_inductor_backend(tmp_path):
    """Inductor fuses LayerNorm its own way: weights agree to rounding, not bit for bit."""
    for r in _launch(tmp_path, "fsdp", "inductor"):
        assert r["weights_close"] and r["states_equal"], r
        assert r["block_ops"] > 0 and r["block_captures"] == 1, r
