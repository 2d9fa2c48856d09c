"""The PTX-compile tests and the interpreter-mode tests do not depend on each other's process
state, on the order pytest runs them in, or on the caller's TRITON_* variables (issue 16.5)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from tests.backends.ptx import compile_kernels_to_ptx, ptx_environment

pytestmark = pytest.mark.triton

ROOT = Path(__file__).resolve().parents[2]
PTX_TESTS = ["tests/backends/test_triton_gpu_codegen.py::test_cuda_kernels_compile_to_ptx[1]",
             "tests/backends/test_triton_symbolic.py::test_symbolic_cuda_kernels_compile_to_ptx_with_sizes_as_arguments"]
INTERPRETER_TESTS = ["tests/backends/test_triton_symbolic.py::test_what_needs_a_concrete_size_becomes_an_aten_call_not_a_wrong_kernel",
                     "tests/backends/test_ptx_isolation.py::test_this_process_interprets_with_its_own_triton_caches"]


def test_ptx_child_environment_drops_every_callers_triton_variable(tmp_path):
    base = {"PATH": "/bin", "TRITON_INTERPRET": "1", "TRITON_CACHE_DIR": "/shared/cache",
            "TRITON_ALWAYS_COMPILE": "1", "TRITON_HOME": "/shared"}
    env = ptx_environment(tmp_path, base)
    assert env["PATH"] == "/bin" and "TRITON_INTERPRET" not in env and "TRITON_ALWAYS_COMPILE" not in env
    for name in ("TRITON_HOME", "TRITON_CACHE_DIR", "TRITON_DUMP_DIR", "TRITON_OVERRIDE_DIR"):
        assert Path(env[name]).is_relative_to(tmp_path), name


def test_this_process_interprets_with_its_own_triton_caches():
    """tests/conftest.py forces interpreter mode and a session cache, whatever was exported."""
    import triton

    assert triton.knobs.runtime.interpret
    assert os.environ["TRITON_INTERPRET"] == "1"
    assert "autograph-tests-triton-" in os.environ["TRITON_CACHE_DIR"]


@pytest.mark.slow
def test_ptx_compile_after_interpreted_kernels_in_this_process(tmp_path, monkeypatch, compile_fn):
    """Interpreter-mode kernels ran here first and the caller exports TRITON_INTERPRET=1 and a
    shared cache: the PTX compile still sees real JITFunctions and leaves that cache alone."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from autograph.backends.triton.backend import TritonBackend, decompositions

    def fn(x):
        return (x.sin() * 2).sum(-1)

    x = torch.randn(4, 32)
    torch.testing.assert_close(compile_fn(fn, x)(x), fn(x))  # an interpreted kernel ran
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(shared))
    record = TritonBackend(str(tmp_path / "ag"))._generate(make_fx(fn, decomposition_table=decompositions())(x), gpu=True)
    assert compile_kernels_to_ptx(record, tmp_path / "ptx")
    assert not any(shared.iterdir())
    assert any((tmp_path / "ptx" / "triton-home" / "cache").iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("order", ["ptx-first", "interpreter-first"])
def test_backend_tests_pass_in_either_order_with_a_hostile_environment(tmp_path, order):
    """A child pytest with the caller's TRITON_INTERPRET=0 and its own TRITON_CACHE_DIR runs the
    PTX tests and interpreter-mode tests in both orders (a plugin reverses pytest's order)."""
    (tmp_path / "reverse_order.py").write_text(textwrap.dedent("""
        def pytest_collection_modifyitems(session, config, items):
            items.reverse()
    """))
    env = dict(os.environ, TRITON_INTERPRET="0", TRITON_CACHE_DIR=str(tmp_path / "callers-cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    tests = PTX_TESTS + INTERPRETER_TESTS
    plugin = ["-p", "reverse_order"] if order == "interpreter-first" else []
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *tests],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"{len(tests)} passed" in proc.stdout
    assert not (tmp_path / "callers-cache").exists()
