"""The Triton backend as a whole: registry, fallbacks, exposed sources, GPU code generation."""
from __future__ import annotations

import logging

import pytest
import torch

from autograph.backends import registry

pytestmark = pytest.mark.triton


def f(x, y):
    return (x.sin() + y).softmax(-1)


def test_lookup_triton_compiles_through_registry(tmp_path):
    from autograph.settings import Settings

    settings = Settings(cache_dir=tmp_path)
    backend = registry.lookup("triton", settings=settings)
    x, y = torch.randn(3, 5), torch.randn(5)
    compiled = backend(torch.fx.symbolic_trace(f), [x, y])
    torch.testing.assert_close(compiled(x, y), f(x, y))
    assert compiled.kernels and all(k.source.startswith("import triton") for k in compiled.kernels)
    assert "def call(args)" in compiled.wrapper_source
    assert list(tmp_path.glob("kernels/*.py"))  # written under the settings' cache_dir


def test_bf16_on_cpu_runs_as_interpreted_kernels_rounded_as_on_the_gpu(triton_backend):
    """The interpreter's own bf16 conversions truncate and flush subnormals; the kernels round to
    nearest even themselves, so the stored values are eager's, subnormals and ties included."""
    x = torch.tensor([1.0 + 2**-8, 1.0 + 3 * 2**-8, 9.18e-41, -9.18e-41, 3.0e38, float("nan"), 2.0, -0.0],
                     dtype=torch.bfloat16)
    fn = lambda x: x * 1.5 + 0.0  # noqa: E731  (1.5 * (1 + 2**-8) is a tie in bf16)
    compiled = triton_backend(torch.fx.symbolic_trace(fn), [x])
    assert compiled.graphs[0].fallback_reason is None and compiled.kernels
    got, want = compiled(x), fn(x)
    assert torch.equal(got.view(torch.int16), want.view(torch.int16)) or (
        torch.equal(got.isnan(), want.isnan()) and torch.equal(got[~got.isnan()], want[~want.isnan()]))


def test_symbolic_shapes_fall_back(triton_backend):
    from torch.fx.experimental.proxy_tensor import make_fx

    gm = make_fx(lambda x: x.cos() * 3, tracing_mode="symbolic")(torch.randn(6))
    x = torch.randn(6)
    compiled = triton_backend(gm, [x])
    torch.testing.assert_close(compiled(x), x.cos() * 3)


def test_nested_outputs_are_rebuilt(triton_backend):
    def g(x):
        return {"a": x + 1, "b": [x * 2, x.sum()]}

    x = torch.randn(3)
    out = triton_backend(torch.fx.symbolic_trace(g), [x])(x)
    torch.testing.assert_close(out["a"], x + 1)
    torch.testing.assert_close(out["b"][1], x.sum())


def test_compiled_once_per_graph_not_per_call(triton_backend):
    x, y = torch.randn(3, 5), torch.randn(5)
    compiled = triton_backend(torch.fx.symbolic_trace(f), [x, y])
    for _ in range(3):
        compiled(torch.randn(3, 5), torch.randn(5))
    assert len(compiled.graphs) == 1


def test_input_with_other_strides_at_run_time_is_restrided(triton_backend):
    x, y = torch.randn(3, 5), torch.randn(5)
    compiled = triton_backend(torch.fx.symbolic_trace(f), [x, y])
    xt = torch.randn(5, 3).t()  # same shape, transposed strides
    torch.testing.assert_close(compiled(xt, y), f(xt, y))


def test_gpu_sources_are_valid_python_with_autotune(tmp_path):
    """No GPU here: generate the CUDA variant and check it compiles as Python and autotunes."""
    import torch.nn.functional as F
    from torch.fx.experimental.proxy_tensor import make_fx

    from autograph.backends.triton.backend import TritonBackend, decompositions

    def fn(x, w):
        return F.layer_norm(x, (2000,), w).relu(), x.sum(-1)

    aten_gm = make_fx(fn, decomposition_table=decompositions())(torch.randn(4, 2000), torch.randn(2000))
    record = TritonBackend(str(tmp_path))._generate(aten_gm, gpu=True)
    assert record["kernels"]
    for name, source in record["kernels"]:
        compile(source, name, "exec")
        assert "@triton.autotune(configs=[" in source
    compile(record["wrapper"], "wrapper", "exec")
    assert "meta['XBLOCK']" in record["wrapper"]
    assert any(name.startswith("triton_red_") for name, _ in record["kernels"])  # 2000 > 1024: looped


def test_kernel_failing_at_first_call_falls_back_to_aten(triton_backend, monkeypatch, caplog):
    from autograph.backends.triton import runtime

    real_load = runtime.KernelCache.load_kernel

    def broken_load(self, name, source, *, interpret):
        real_load(self, name, source, interpret=interpret)

        class Broken:
            def __getitem__(self, grid):
                def launch(*args, **kwargs):
                    raise RuntimeError("simulated launch failure")

                return launch

        return Broken()

    monkeypatch.setattr(runtime.KernelCache, "load_kernel", broken_load)
    x = torch.randn(4, 5)
    with caplog.at_level(logging.WARNING, logger="autograph.backends.triton"):
        compiled = triton_backend(torch.fx.symbolic_trace(lambda x: x.sin() * 2), [x])
        torch.testing.assert_close(compiled(x), x.sin() * 2)
        torch.testing.assert_close(compiled(x + 1), (x + 1).sin() * 2)
    assert "simulated launch failure" in compiled.graphs[0].fallback_reason
    assert caplog.text.count("runs with aten from now on") == 1
