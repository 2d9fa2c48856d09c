"""backend="triton" through the import hook: `python -m autograph run --backend triton`."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.triton

PACKAGE = '''
import torch


def gelu_mlp(x, w):
    h = x @ w
    return torch.nn.functional.gelu(h) * torch.sigmoid(h) + 1.0
'''

SCRIPT = '''
import torch
import autograph
import fusedpkg

torch.manual_seed(0)
x, w = torch.randn(8, 16), torch.randn(16, 32)
expected = torch.nn.functional.gelu(x @ w) * torch.sigmoid(x @ w) + 1.0
for _ in range(4):  # the 3rd call compiles (compile_threshold), the 4th hits
    assert torch.allclose(fusedpkg.gelu_mlp(x, w), expected, atol=1e-5)
text = str(autograph.inspect(fusedpkg.gelu_mlp))
kernels = [line.strip() for line in text.splitlines() if "def triton_" in line]
print("KERNELS", len(kernels), kernels[:1])
'''


def test_triton_backend_through_the_import_hook(tmp_path):
    pytest.importorskip("triton")
    (tmp_path / "fusedpkg").mkdir()
    (tmp_path / "fusedpkg" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    script = tmp_path / "run_fused.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = dict(os.environ, TRITON_INTERPRET="1", AUTOGRAPH_PACKAGES="fusedpkg",
               AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path))
    env.pop("AUTOGRAPH_CONFIG", None)
    done = subprocess.run([sys.executable, "-m", "autograph", "run", "--backend", "triton", str(script)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    line = [l for l in done.stdout.splitlines() if l.startswith("KERNELS")][0]
    assert int(line.split()[1]) >= 1, done.stdout  # the graph ran as generated Triton kernels
    assert "triton_poi_fused" in line, line
