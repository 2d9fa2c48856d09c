"""Compiled kernels and graphs are cached on disk: a second process does not regenerate them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.triton

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ["TRITON_INTERPRET"] = "1"
    import torch
    import torch.nn.functional as F
    from autograph.backends.triton.backend import TritonBackend

    def f(x, w):
        return F.layer_norm(x, (16,), w).sin() * 2

    torch.manual_seed(0)
    x, w = torch.randn(4, 16), torch.randn(16)
    backend = TritonBackend(cache_dir=sys.argv[1])
    compiled = backend(torch.fx.symbolic_trace(f), [x, w])
    ok = torch.allclose(compiled(x, w), f(x, w), atol=1e-5)
    print(json.dumps({"hit": [g.cache_hit for g in compiled.graphs], "ok": ok,
                      "kernels": [k.name for k in compiled.kernels],
                      "hits": backend.cache.graph_hits, "misses": backend.cache.graph_misses}))
""")


def run(cache_dir: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(cache_dir)], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_hits_the_disk_cache(tmp_path):
    first = run(tmp_path)
    assert first["ok"] and first["hit"] == [False] and first["misses"] == 1
    kernel_files = sorted((tmp_path / "kernels").glob("*.py"))
    assert len(kernel_files) == len(first["kernels"]) >= 1
    mtimes = [f.stat().st_mtime_ns for f in kernel_files]
    second = run(tmp_path)
    assert second["ok"] and second["hit"] == [True] and second["hits"] == 1
    assert second["kernels"] == first["kernels"]
    assert [f.stat().st_mtime_ns for f in sorted((tmp_path / "kernels").glob("*.py"))] == mtimes  # not rewritten
    record = json.loads(next((tmp_path / "graphs").glob("*.json")).read_text())
    assert "def call(args)" in record["wrapper"]


@pytest.mark.slow
def test_corrupt_cache_entry_is_regenerated(tmp_path):
    run(tmp_path)
    for path in (tmp_path / "graphs").glob("*.json"):
        path.write_text("{not json")
    again = run(tmp_path)
    assert again["ok"] and again["hit"] == [False]


def test_altered_record_is_not_used_and_recompiles(tmp_path):
    """A record changed on disk but still valid JSON (here: the kernel multiplies by 3, not 2)
    fails its hash check: the graph is recompiled and the values are right."""
    run(tmp_path)
    (path,) = (tmp_path / "graphs").glob("*.json")
    record = json.loads(path.read_text())
    record["kernels"] = [[name, source.replace("* 2\n", "* 3\n")] for name, source in record["kernels"]]
    assert record["kernels"] != json.loads(path.read_text())["kernels"]  # the edit took
    path.write_text(json.dumps(record))
    again = run(tmp_path)
    assert again["ok"] and again["hit"] == [False] and again["hits"] == 0
    assert json.loads(path.read_text())["kernels"] != record["kernels"]  # rewritten by the recompile


def test_altered_record_logs_on_the_backend_channel(tmp_path, caplog):
    import logging

    from autograph.backends.triton.runtime import KernelCache

    cache = KernelCache(tmp_path)
    cache.put_graph("k", {"kernels": [["a", "x = 1"]], "wrapper": "def call(args): return []"})
    assert cache.get_graph("k")["wrapper"] == "def call(args): return []"
    path = cache.graph_path("k")
    path.write_text(path.read_text().replace("return []", "return [1]"))
    with caplog.at_level(logging.INFO, logger="autograph.kernels"):
        assert cache.get_graph("k") is None
    assert "altered on disk" in caplog.text and cache.graph_misses == 1
    cache.graph_path("other").write_text(path.read_text())  # a valid record under another key
    assert cache.get_graph("other") is None
