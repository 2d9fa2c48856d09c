"""Inductor's CPU ISA check runs on a thread of its own while inductor's imports go on (a fresh
interpreter each: the check's result and the imports are once per process)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_RUN = textwrap.dedent("""
    import sys, threading, torch, autograph
    from pathlib import Path
    from torch._inductor import cpu_vec_isa
    from autograph.backends import inductor
    from autograph.testing import slow_compiler

    real = cpu_vec_isa.valid_vec_isa_list
    seen = []
    def recording():
        seen.append((threading.current_thread().name, "torch._inductor.compile_fx" in sys.modules))
        return real()
    cpu_vec_isa.valid_vec_isa_list = recording
    inductor.REQUEST_DEFAULTS = dict(slow_compiler.SETTINGS)
    f = lambda x: torch.sigmoid(x) * 2 - x
    x = torch.arange(6.0, device=sys.argv[2])
    out = autograph.compile(f, backend=inductor.make_inductor_backend(Path(sys.argv[1])))(x)
    want = f(x)
    assert out.shape == want.shape and out.device == want.device
    assert x.device.type == "meta" or torch.equal(out, want), (out, want)
    print(seen, "torch._inductor.compile_fx" in sys.modules,
          [t.name for t in threading.enumerate() if t.name == "autograph-isa-check"])
""")


def _run(tmp_path: Path, device: str) -> str:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "torch"))
    proc = subprocess.run([sys.executable, "-c", _RUN, str(tmp_path / "cache"), device], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


@pytest.mark.slow
def test_a_cpu_graph_has_the_isa_check_run_on_a_thread_while_compile_fx_is_imported(tmp_path):
    # checked once, on the thread, before compile_fx was imported; the thread is gone when the graph runs
    assert _run(tmp_path, "cpu") == "[('autograph-isa-check', False)] True []"


def test_a_graph_without_cpu_tensors_does_not_start_the_check(tmp_path):
    assert _run(tmp_path, "meta") == "[] False []"


@pytest.mark.parametrize("why", ["configured", "already checked"])
def test_no_thread_when_inductor_will_not_check(monkeypatch, why):
    """``cpp.vec_isa_ok`` set by the user, or the check's result already cached: nothing to overlap."""
    import threading

    import torch._inductor.compile_fx  # noqa: F401
    from torch._inductor import config, cpu_vec_isa

    from autograph.backends import inductor_preload

    calls = []
    started = []
    monkeypatch.setattr(inductor_preload, "_done", False)
    monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name))
    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", lambda: calls.append(1) or [])
    if why == "already checked":
        monkeypatch.setattr(inductor_preload, "_isa_known", lambda module: True)
    with config.patch({"cpp.vec_isa_ok": True if why == "configured" else None}):
        inductor_preload.prepare_inductor()
    assert calls == [] and started == []
