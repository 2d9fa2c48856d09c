"""Parallel precompile of a graph's GPU kernels (precompile.py), checked on CPU.

The warm-up arguments come from the wrapper generated for CUDA; the compiles go through
triton's ``AsyncCompileMode`` to a stand-in ``warmup`` that records what it was asked.
"""
from __future__ import annotations

import threading

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from autograph.backends.triton.precompile import launch_arguments, precompile

pytestmark = pytest.mark.triton


def gpu_record(tmp_path, fn, inputs):
    from autograph.backends.triton.backend import TritonBackend, decompositions
    from tests.backends.wrapper_bench import _kernel_signature

    gm = make_fx(fn, decomposition_table=decompositions())(*inputs)
    record = TritonBackend(str(tmp_path))._generate(gm, gpu=True)
    names = {name: _kernel_signature(source, name)[0] for name, source in record["kernels"]}
    return record, names


def norms(x, w, h):
    y = torch.nn.functional.layer_norm(x, (64,), w)
    return torch.softmax(y, -1) + 1, (h * 2).sum(0)


INPUTS = [torch.randn(8, 64), torch.randn(64), torch.randn(8, 64).half()]


def test_warm_up_arguments_are_read_from_the_cuda_wrapper(tmp_path):
    record, names = gpu_record(tmp_path, norms, INPUTS)
    args = launch_arguments(record["wrapper"], record["signatures"], names)
    assert set(args) == set(names)
    for name, a in args.items():
        constexprs = [p for p in names[name] if p in ("XBLOCK", "RBLOCK")]
        assert len(a) == len(names[name]) - len(constexprs)
        ptrs = [x for x in a if isinstance(x, torch.dtype)]
        assert ptrs == [{"*fp32": torch.float32, "*fp16": torch.float16}[record["signatures"][name][p]]
                        for p in names[name] if p in record["signatures"][name]]
        assert all(isinstance(x, int) and x > 0 for x in a[len(ptrs):])
    assert torch.float16 in {x for a in args.values() for x in a}


def test_symbolic_sizes_are_not_warmed_up():
    wrapper = "def call(args):\n    k0[grid_k0](in0, out0, s0)\n    k1[grid_k1](in0, out0, 64)\n"
    sig = {"k0": {"in_ptr0": "*fp32", "out_ptr0": "*fp32"}, "k1": {"in_ptr0": "*fp32", "out_ptr0": "*bf16"}}
    names = {k: ["in_ptr0", "out_ptr0", "xnumel", "XBLOCK"] for k in sig}
    assert launch_arguments(wrapper, sig, names) == {"k1": [torch.float32, torch.bfloat16, 64]}


class FakeConfig:
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def all_kwargs(self):
        return {**self.kwargs, "num_warps": 4}


class FakeJIT:
    def __init__(self, log):
        self.log = log

    def warmup(self, *args, grid, **kwargs):
        self.log.append((args, kwargs, threading.current_thread().name))


class FakeAutotuner:
    def __init__(self, arg_names, configs, log):
        self.arg_names, self.configs, self.fn = arg_names, configs, FakeJIT(log)


def test_every_config_of_every_kernel_is_submitted(tmp_path):
    pytest.importorskip("triton.runtime._async_compile")
    record, names = gpu_record(tmp_path, norms, INPUTS)
    log = []
    kernels = {}
    for name, params in names.items():
        blocks = [p for p in params if p in ("XBLOCK", "RBLOCK")]
        configs = [FakeConfig(**{b: 2 ** (i + 3) for b in blocks}) for i in range(3)]
        kernels[name] = FakeAutotuner(params, configs, log)
    assert precompile(kernels, record, workers=2) == 3 * len(names)
    assert len(log) == 3 * len(names)
    expected = launch_arguments(record["wrapper"], record["signatures"], names)
    assert sorted(map(repr, (a for a, _, _ in log))) == sorted(repr(tuple(a)) for a in expected.values() for _ in range(3))
    assert all(kw["num_warps"] == 4 and "XBLOCK" in kw for _, kw, _ in log)


def test_a_failing_warm_up_never_raises(tmp_path):
    record, names = gpu_record(tmp_path, norms, INPUTS)

    class Broken:
        def warmup(self, *args, **kwargs):
            raise RuntimeError("no GPU")

    kernels = {n: FakeAutotuner(p, [FakeConfig(XBLOCK=8, RBLOCK=64)], []) for n, p in names.items()}
    for k in kernels.values():
        k.fn = Broken()
    precompile(kernels, record, workers=2)
    assert precompile({}, record) == 0
    assert precompile(kernels, {"wrapper": None}, workers=2) == 0


def test_workers_from_the_environment(monkeypatch):
    from autograph.backends.triton.precompile import parallel_compile_workers

    monkeypatch.setenv("AUTOGRAPH_TRITON_COMPILE_WORKERS", "0")
    assert parallel_compile_workers() == 0
    monkeypatch.delenv("AUTOGRAPH_TRITON_COMPILE_WORKERS")
    assert 1 <= parallel_compile_workers() <= 16


def test_autotuning_times_each_config_briefly():
    triton = pytest.importorskip("triton")
    from autograph.backends.triton.precompile import quick_benchmark, shorten_autotuning

    @triton.autotune(configs=[triton.Config({"XBLOCK": 8}), triton.Config({"XBLOCK": 16})], key=["n"])
    @triton.jit
    def kernel(x, n, XBLOCK: "triton.language.constexpr"):
        pass

    assert shorten_autotuning(kernel) and kernel.do_bench is quick_benchmark

    class ReadOnly:
        configs = [1, 2]
        do_bench = property(lambda self: "triton's")

    single = FakeAutotuner(["x"], [FakeConfig(XBLOCK=8)], [])
    single.do_bench = "triton's"
    assert not shorten_autotuning(ReadOnly()) and not shorten_autotuning(single)
    assert single.do_bench == "triton's"


class FakeSource:
    def __init__(self, signature):
        self.signature, self.constants = signature, {}


class FakeCompiled:
    def __init__(self, signature):
        self.src, self.metadata = FakeSource(signature), object()


class FakeFuture:
    """What ``warmup`` returns under ``AsyncCompileMode``: the compiled kernel, or None if it failed."""

    future = None

    def __init__(self, kernel):
        self.kernel = kernel

    def result(self, ignore_errors=False):
        return self.kernel


def test_launchers_are_built_once_per_signature_on_the_compile_threads(monkeypatch):
    from triton.runtime.driver import driver

    from autograph.backends.triton.precompile import prebuild_launchers

    built = []

    class Driver:
        def launcher_cls(self, src, metadata):
            built.append((tuple(src.signature.items()), threading.current_thread().name))

    monkeypatch.setattr(driver, "_active", Driver())
    a, b = {"in_ptr0": "*fp32", "xnumel": "i32"}, {"in_ptr0": "*bf16", "xnumel": "i32"}
    compiled = [FakeCompiled(a), FakeFuture(FakeCompiled(a)), FakeCompiled(b), FakeFuture(None), object()]
    assert prebuild_launchers(compiled, workers=2) == 2
    assert sorted(sig for sig, _ in built) == sorted([tuple(a.items()), tuple(b.items())])
    assert all(name.startswith("autograph-launcher") for _, name in built)

    class Failing:
        def launcher_cls(self, src, metadata):
            raise RuntimeError("no C compiler")

    monkeypatch.setattr(driver, "_active", Failing())
    assert prebuild_launchers(compiled, workers=2) == 0
