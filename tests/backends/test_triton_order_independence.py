"""The Triton backend's output is a function of the graph alone: compiling graph A first must
not change graph B's kernels (no process-wide state carried between compilations)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.triton

# In a child process so the comparison starts from a truly fresh backend module state.
_SCRIPT = textwrap.dedent("""
    import json, sys, torch
    from autograph.backends.triton.backend import TritonBackend
    import autograph

    def wide(x):                       # x0 over 2048 elements
        return (x.reshape(-1) * 2).sin()

    def narrow(x):                     # a [8, 16] reshape round trip: x0 over 16
        return (x.reshape(8, 16) + 1).reshape(-1, 16).sum(0).cos()

    def symbolic(x):                   # sizes as kernel arguments
        return (x * 3).relu().sum(-1)

    order = sys.argv[1].split(",")
    fns = {"wide": (wide, torch.randn(2048), "static"), "narrow": (narrow, torch.randn(128), "static"),
           "symbolic": (symbolic, torch.randn(6, 5), "always")}
    kernels = {}
    for name in order:
        fn, x, dyn = fns[name]
        backend = TritonBackend(cache_dir=sys.argv[2] + "/" + name + "-" + sys.argv[1])
        compiled = autograph.compile(fn, backend=backend, dynamic=dyn)
        torch.testing.assert_close(compiled(x), fn(x))
        kernels[name] = [k.source for c in backend.compiled for k in c.kernels]
    print(json.dumps(kernels))
""")


def _kernels(order: str, tmp_path) -> dict:
    import json
    env = dict(os.environ, TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", _SCRIPT, order, str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_compiling_other_graphs_first_does_not_change_a_graphs_kernels(tmp_path):
    alone = {name: _kernels(name, tmp_path)[name] for name in ("narrow", "symbolic")}
    after = _kernels("wide,symbolic,narrow", tmp_path)
    assert after["narrow"] == alone["narrow"]
    assert after["symbolic"] == alone["symbolic"]
