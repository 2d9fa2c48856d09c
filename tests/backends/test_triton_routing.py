"""Graphs go to a backend by their tensors' device; the Triton backend compiles for the device
its tensors are on (factory-only graphs included) and runs on CPU without TRITON_INTERPRET
exported; the report names what ran (issue 28, "Wrong routing")."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from autograph.backends.routing import graph_device, ran_as
from autograph.capture.engine.api import capture
from tests.capture.harness import Harness

pytestmark = pytest.mark.triton

ROOT = Path(__file__).resolve().parents[2]


def scale_and_sum(x):
    return (x * 2).sum(-1)


def test_cpu_tensors_are_not_sent_to_triton_on_a_machine_with_cuda(monkeypatch):
    """``auto`` on a CUDA machine: a graph of CPU tensors runs with eager, not in the interpreter."""
    pytest.importorskip("triton")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    h = Harness(backend="auto")
    x = torch.randn(3, 5)
    result = capture(scale_and_sum, (x,), {}, h.settings, wrap_nested=h.wrap)
    assert result.backend.startswith("auto → eager"), result.backend
    compiled = result.graphs[0].compiled
    assert not getattr(compiled, "kernels", None)
    torch.testing.assert_close(result.fn(x), scale_and_sum(x))


def test_graph_device_reads_inputs_then_the_tensors_the_graph_makes():
    gm = make_fx(lambda: torch.arange(8, device="cuda", dtype=torch.float32) * 2, tracing_mode="fake")()
    assert graph_device(gm, []) == "cuda"
    assert graph_device(gm, [torch.zeros(2)]) == "cpu"
    no_tensors = make_fx(lambda: None)()
    assert graph_device(no_tensors, []) is None


def test_factory_only_graph_compiles_for_cuda(tmp_path, monkeypatch):
    """No tensor inputs: the kernels are generated for the device of the tensors it creates."""
    pytest.importorskip("triton")
    from autograph.backends.triton.backend import TritonBackend, aten_graph_device

    gm = make_fx(lambda: torch.arange(8, device="cuda", dtype=torch.float32) * 2, tracing_mode="fake")()
    assert aten_graph_device(gm) == "cuda"
    backend = TritonBackend(str(tmp_path))
    seen = []

    def generate(graph, gpu):
        seen.append(gpu)
        raise NotImplementedError("stop here: no GPU to load the kernels on")

    monkeypatch.setattr(backend, "_generate", generate)
    backend.compile_aten(gm, [], "inference")
    assert seen == [True]


def test_report_names_graphs_that_ran_with_aten():
    class Graph:
        def __init__(self, reason):
            self.fallback_reason = reason

    def compiled():
        pass

    compiled.graphs = [Graph(None), Graph("first call failed: boom")]
    assert ran_as("triton", compiled) == "triton (1 of 2 graphs ran with aten: first call failed: boom)"
    compiled.graphs = [Graph(None)]
    assert ran_as("triton", compiled) == "triton"


SCRIPT = """
import os, torch
assert "TRITON_INTERPRET" not in os.environ
import triton  # imported first, not in interpreter mode
assert not triton.knobs.runtime.interpret
import autograph
from autograph.backends.triton.backend import TritonBackend

def fn(x):
    return torch.softmax(x, -1), x.sum(-1), x.amax(0), (x * 0.5 + 1).prod(-1)

x = torch.randn(6, 40)
backend = TritonBackend(os.environ["CACHE"])
compiled = backend(torch.fx.symbolic_trace(fn), [x])
for got, want in zip(compiled(x), fn(x)):
    torch.testing.assert_close(got, want)
assert [g.fallback_reason for g in compiled.graphs] == [None], compiled.graphs
assert compiled.kernels

@autograph.compile(backend="triton")
def g(x):
    return (x * 2).sum(-1)

for _ in range(3):
    torch.testing.assert_close(g(x), (x * 2).sum(-1))
print("BACKEND", autograph.report().functions[0].backend)
print("OK")
"""


def test_triton_on_cpu_without_triton_interpret_exported(tmp_path):
    """Reductions call triton's own @jit helpers (tl.sum...); without the variable they were real
    JITFunctions and every reduction kernel failed, the graph ran with aten, the report said triton."""
    pytest.importorskip("triton")
    (tmp_path / "run.py").write_text(textwrap.dedent(SCRIPT))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_") and not k.startswith("AUTOGRAPH_")}
    env.update(PYTHONPATH=str(ROOT), CACHE=str(tmp_path / "cache"), AUTOGRAPH_CACHE_DIR=str(tmp_path / "ag"),
               TRITON_CACHE_DIR=str(tmp_path / "triton"))
    done = subprocess.run([sys.executable, str(tmp_path / "run.py")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    assert "OK" in done.stdout
    backend_line = [line for line in done.stdout.splitlines() if line.startswith("BACKEND")][0]
    assert backend_line == "BACKEND triton", backend_line
    assert "ran with aten" not in done.stdout + done.stderr


@pytest.mark.parametrize("backend", ["inductor", "triton"])
def test_graphs_holding_rnn_ops_run_with_eager_and_say_why(backend):
    """``nn.LSTM``/``nn.GRU`` in a graph (their ops cannot be traced by AOTAutograd: inductor's and
    the Triton backend's compiled call raised) run with the eager backend, which the result names."""
    from autograph.settings import Settings

    torch.manual_seed(0)
    lstm, gru = torch.nn.LSTM(4, 8, batch_first=True), torch.nn.GRU(4, 8)

    def run(x):
        return lstm(x)[0].sum(1) + gru(x.transpose(0, 1))[1][-1]

    x = torch.randn(2, 5, 4)
    settings = Settings().model_copy(update={"backend": backend, "on_error": "raise"})
    result = capture(run, (x,), {}, settings, wrap_nested=lambda fn: fn)
    assert result.breaks == [] and result.backend.startswith("eager (the graph holds torch.lstm"), result.backend
    got = result.fn(x)
    got.sum().backward()
    grads = [p.grad.clone() for p in lstm.parameters()]
    lstm.zero_grad()
    want = run(x)
    want.sum().backward()
    assert torch.equal(got, want) and all(torch.equal(g, p.grad) for g, p in zip(grads, lstm.parameters()))
