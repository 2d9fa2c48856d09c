"""Direct kernel launches (launch.py), checked on CPU with a stand-in for triton's kernels.

The stand-in records what triton would launch (grid, stream, function, metadata, arguments
with the block sizes appended, as triton >= 3.3 does); a direct launch must repeat exactly
that, and only for a call triton would have specialised the same way.
"""
from __future__ import annotations

import pytest
import torch

from autograph.backends.triton import launch
from autograph.backends.triton.launch import FastLaunch


class FakeConfig:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.pre_hook = None


class FakeCompiled:
    function = "cu_function"
    packed_metadata = ("num_warps", 4)

    def __init__(self, launches):
        self.run = lambda *a: launches.append(a)


class FakeAutotuner:
    """``kernel[grid](*args)`` as triton's Autotuner: compiles per specialisation, launches, returns
    the compiled kernel; ``best_config`` is the config of the last call."""

    def __init__(self, arg_names, **config):
        self.arg_names = arg_names
        self.best_config = FakeConfig(**config)
        self.slow_calls = 0
        self.launches: list[tuple] = []
        self.compiled: dict = {}

    def __getitem__(self, grid):
        def call(*args, **constexprs):
            self.slow_calls += 1
            values = {**(self.best_config.kwargs if self.best_config else {}), **constexprs}
            full = args + tuple(values[n] for n in self.arg_names[len(args):])
            g = grid(dict(zip(self.arg_names, full))) if callable(grid) else grid
            g = tuple(g) + (1,) * (3 - len(g))
            key = tuple(a.data_ptr() % 16 if isinstance(a, torch.Tensor) else a for a in args)
            compiled = self.compiled.setdefault(key, FakeCompiled(self.launches))
            compiled.run(*g, 5, "cu_function", ("num_warps", 4), None, None, None, *full)
            return compiled

        return call


@pytest.fixture
def direct(monkeypatch):
    monkeypatch.setattr(launch, "triton_supports_direct_launch", lambda: True)
    monkeypatch.setattr(launch, "_launch_hooks_installed", lambda: False)
    monkeypatch.setattr(launch, "_current_device", lambda: 0)
    monkeypatch.setattr(launch, "_current_stream", lambda device: 5)
    monkeypatch.delenv("AUTOGRAPH_TRITON_FAST_LAUNCH", raising=False)


def grid(meta):
    return ((meta["xnumel"] + meta["XBLOCK"] - 1) // meta["XBLOCK"],)


def pointwise():
    return FakeAutotuner(["in_ptr0", "out_ptr0", "xnumel", "XBLOCK"], XBLOCK=128)


def test_later_calls_repeat_the_first_launch_without_triton(direct):
    kernel = pointwise()
    fast = FastLaunch(kernel)
    x, out = torch.zeros(1000), torch.zeros(1000)
    fast[grid](x, out, 1000)
    y, out2 = torch.zeros(1000), torch.zeros(1000)
    fast[grid](y, out2, 1000)
    fast[grid](y, out2, 1000)
    assert kernel.slow_calls == 1 and fast.fast_calls == 2
    first, second, third = kernel.launches
    assert second == (8, 1, 1, 5, "cu_function", ("num_warps", 4), None, None, None, y, out2, 1000, 128)
    assert first[:9] == second[:9] == third[:9] and first[9] is x


def test_a_new_size_or_alignment_goes_through_triton_first(direct):
    kernel = pointwise()
    fast = FastLaunch(kernel)
    x, out = torch.zeros(1001), torch.zeros(1000)
    fast[grid](x[:1000], out, 1000)
    fast[grid](x[1:], out, 1000)  # 4 bytes off: triton would not assume 16-byte alignment
    fast[grid](x[:999], out, 999)  # another size: another autotune key and grid
    assert kernel.slow_calls == 3 and fast.fast_calls == 0
    fast[grid](x[1:], out, 1000)
    fast[grid](x[:999], out, 999)
    assert kernel.slow_calls == 3 and fast.fast_calls == 2
    assert kernel.launches[-1][:3] == (8, 1, 1) and kernel.launches[-1][-2:] == (999, 128)
    assert kernel.launches[-2][9].data_ptr() == x[1:].data_ptr()


def test_explicit_constexprs_and_fixed_grids(direct):
    kernel = FakeAutotuner(["in_ptr0", "out_ptr0", "xnumel", "rnumel", "XBLOCK", "RBLOCK"])
    kernel.best_config = None  # a plain JITFunction: block sizes come with the call
    fast = FastLaunch(kernel)
    x, out = torch.zeros(64, 32), torch.zeros(64)
    for _ in range(2):
        fast[(16,)](x, out, 64, 32, XBLOCK=4, RBLOCK=32)
    assert kernel.slow_calls == 1 and fast.fast_calls == 1
    assert kernel.launches[1] == (16, 1, 1, 5, "cu_function", ("num_warps", 4), None, None, None,
                                  x, out, 64, 32, 4, 32)


@pytest.mark.parametrize("breaks", ["float argument", "no packed metadata", "pre-hook", "too old", "env off"])
def test_anything_unexpected_keeps_launching_through_triton(direct, monkeypatch, breaks):
    kernel = pointwise()
    args = [torch.zeros(8), torch.zeros(8), 8]
    if breaks == "float argument":
        kernel.arg_names = ["in_ptr0", "out_ptr0", "xnumel", "scale", "XBLOCK"]
        args.append(0.5)
    elif breaks == "no packed metadata":
        monkeypatch.delattr(FakeCompiled, "packed_metadata")
    elif breaks == "pre-hook":
        kernel.best_config.pre_hook = print
    elif breaks == "too old":
        monkeypatch.setattr(launch, "triton_supports_direct_launch", lambda: False)
    else:
        monkeypatch.setenv("AUTOGRAPH_TRITON_FAST_LAUNCH", "0")
    fast = FastLaunch(kernel)
    for _ in range(3):
        fast[grid](*args)
    assert kernel.slow_calls == 3 and fast.fast_calls == 0 and len(kernel.launches) == 3


def test_a_launch_hook_keeps_launching_through_triton(direct, monkeypatch):
    monkeypatch.setattr(launch, "_launch_hooks_installed", lambda: True)
    kernel = pointwise()
    fast = FastLaunch(kernel)
    for _ in range(2):
        fast[grid](torch.zeros(8), torch.zeros(8), 8)
    assert kernel.slow_calls == 2


def test_no_launch_hook_is_installed_by_default():
    pytest.importorskip("triton")
    assert not launch._launch_hooks_installed()


def test_current_triton_is_recognised():
    triton = pytest.importorskip("triton")
    major, minor = (int(p) for p in triton.__version__.split(".")[:2])
    launch.triton_supports_direct_launch.cache_clear()
    assert launch.triton_supports_direct_launch() == ((major, minor) >= (3, 3))


def test_generated_gpu_wrapper_runs_with_direct_launches(direct, tmp_path):
    # the wrapper generated for CUDA, run with stand-in kernels on CPU buffers: every kernel's
    # grid and block sizes reach the launcher, and the second call launches without triton
    from tests.backends.wrapper_bench import gpu_wrapper_with_fake_kernels

    def fn(x, w):
        return torch.softmax(x * w, -1).sum(0), (x.relu() + 1).sum(-1)

    call, kernels, args = gpu_wrapper_with_fake_kernels(fn, [torch.randn(64, 32), torch.randn(32)], tmp_path)
    call(list(args))
    call(list(args))
    assert kernels and all(k.kernel.slow_calls == 1 and k.fast_calls == 1 for k in kernels)
    for k in kernels:
        slow, fast = k.kernel.launches
        assert slow[:9] == fast[:9] and slow[0] >= 1


def test_wrapper_allocation_matches_torch_empty_strided():
    from autograph.backends.triton.runtime import empty_strided

    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.bool):
        t = empty_strided((3, 4, 5), (20, 1, 4), device=torch.device("cpu"), dtype=dtype)
        assert (t.shape, t.stride(), t.dtype, t.device, t.requires_grad) == (
            (3, 4, 5), (20, 1, 4), dtype, torch.device("cpu"), False)
    assert empty_strided((), (), device=torch.device("cpu"), dtype=torch.float16).shape == ()


@pytest.mark.parametrize("index, current, fast", [(0, 0, True), (1, 0, False), (None, 0, False)])
def test_wrapper_allocation_on_cuda_uses_the_fast_path_only_on_the_current_device(monkeypatch, index, current, fast):
    # the C++ entry point allocates on the current device: another device index goes through torch
    from autograph.backends.triton import runtime

    calls = []
    monkeypatch.setattr(runtime, "_EMPTY_CUDA", lambda size, stride, dtype: calls.append("fast") or "fast")
    monkeypatch.setattr(runtime, "_CUDA_DEVICE", lambda: current)
    monkeypatch.setattr(runtime.torch, "empty_strided", lambda *a, **k: calls.append("torch") or "torch")
    device = torch.device("cuda", index) if index is not None else torch.device("cuda")
    runtime.empty_strided((2,), (1,), device=device, dtype=torch.float32)
    assert calls == ["fast" if fast else "torch"]
