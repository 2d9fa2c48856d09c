"""``autograph.compile(mode="reduce-overhead")`` reaches the Triton backend's CUDA graphs
(``reduce_overhead.py``), checked on CPU: fake CUDA inputs show which backend a CUDA graph gets."""
from __future__ import annotations

import logging

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import autograph
from autograph.api import CompileArgumentWarning
from autograph.backends.triton import reduce_overhead
from autograph.backends.triton.reduce_overhead import ReduceOverhead

pytestmark = pytest.mark.triton


def f(x, y):
    return x * 2 + y


@pytest.fixture
def made(monkeypatch):
    """Triton backends made, as their ``cuda_graphs`` flag (a stand-in backend is returned)."""
    import autograph.backends.triton as triton_pkg

    flags: list[bool] = []

    def make(cache_dir=None, *, cuda_graphs=False):
        flags.append(cuda_graphs)
        return lambda gm, inputs: gm.forward

    monkeypatch.setattr(triton_pkg, "make_triton_backend", make)
    return flags


def _shim_backend(compiled):
    return compiled.overrides["backend"]


def test_the_mode_wraps_the_compile_backend():
    with pytest.warns(CompileArgumentWarning, match="no CUDA graphs here"):  # this machine has no GPU
        compiled = autograph.compile(f, mode="reduce-overhead", backend="triton")
    assert _shim_backend(compiled) == ReduceOverhead("triton")
    plain = autograph.compile(f, backend="triton")
    assert plain.overrides["backend"] == "triton"


def test_cuda_graphs_reach_the_triton_backend_for_cuda_graphs(made):
    gm = torch.fx.symbolic_trace(f)
    with FakeTensorMode(allow_non_fake_inputs=True):
        cuda = [torch.empty(4, device="cuda"), torch.empty(4, device="cuda")]
    backend = ReduceOverhead("triton")
    backend(gm, cuda)
    assert made == [True]
    backend(gm, [torch.zeros(4), torch.zeros(4)])  # CPU tensors: the interpreter, no CUDA graphs
    assert made == [True, False]
    backend(gm, cuda)  # one backend per device, reused
    assert made == [True, False]


def test_other_backends_are_unchanged(made):
    calls = []

    def mine(gm, inputs):
        calls.append(len(inputs))
        return gm.forward

    gm = torch.fx.symbolic_trace(f)
    with FakeTensorMode(allow_non_fake_inputs=True):
        cuda = [torch.empty(4, device="cuda"), torch.empty(4, device="cuda")]
    ReduceOverhead(mine)(gm, cuda)
    ReduceOverhead("eager")(gm, cuda)
    assert calls == [2] and made == []


def test_on_cpu_the_mode_runs_and_says_once_that_cuda_graphs_need_a_gpu(monkeypatch, caplog):
    monkeypatch.setattr(reduce_overhead, "_said_no_gpu", False)
    x, y = torch.randn(8), torch.randn(8)
    with pytest.warns(UserWarning, match="no CUDA graphs"):
        compiled = autograph.compile(f, mode="reduce-overhead", backend="triton")
    with caplog.at_level(logging.WARNING, logger="autograph.backends.triton"):
        for _ in range(3):
            assert torch.equal(compiled(x, y), f(x, y))
        g = autograph.compile(lambda x: x.sin() + 1, mode="reduce-overhead", backend="triton")
        torch.testing.assert_close(g(x), x.sin() + 1)
    assert caplog.text.count("CUDA graphs need a GPU") == 1
