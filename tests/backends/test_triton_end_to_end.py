"""``autograph.compile(fn, backend="triton")``: capture -> Triton kernels, in a fresh process."""
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
    import json, os
    os.environ["TRITON_INTERPRET"] = "1"
    import torch
    import torch.nn.functional as F
    import autograph

    def f(x, w):
        y = F.layer_norm(x, (16,), w)
        return torch.softmax(y * 2, -1).sum(0)

    cf = autograph.compile(f, backend="triton")
    x, w = torch.randn(4, 16), torch.randn(16)
    ok = [torch.allclose(cf(x, w), f(x, w), atol=1e-5) for _ in range(2)]
    print(json.dumps({"ok": ok}))
""")


def test_compile_with_triton_backend_runs_generated_kernels(tmp_path):
    pytest.importorskip("autograph.api")
    env = dict(os.environ, PYTHONPATH=str(ROOT), AUTOGRAPH_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"ok": [True, True]}
    kernels = sorted(p.name for p in (tmp_path / "kernels").glob("*.py"))
    assert any(name.startswith("triton_per_fused_") for name in kernels), kernels
