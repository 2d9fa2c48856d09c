"""Fused patterns: right values and gradients, and the expected number of kernels."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

pytestmark = pytest.mark.triton


def run_both(compile_fn, fn, inputs, *, grad=True, atol=1e-5, rtol=1e-4):
    """Compile ``fn``, compare outputs (and input gradients when ``grad``) with eager."""
    compiled = compile_fn(fn, *inputs)
    ref_inputs = [t.detach().clone().requires_grad_(t.requires_grad) for t in inputs]
    got, want = compiled(*inputs), fn(*ref_inputs)
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=atol, rtol=rtol)
    assert all(g.fallback_reason is None for g in compiled.graphs)
    if grad:
        torch.manual_seed(0)
        cotangents = [torch.randn_like(w) for w in want]
        sum(((g * c).sum() for g, c in zip(got, cotangents)), torch.tensor(0.0)).backward()
        sum(((w * c).sum() for w, c in zip(want, cotangents)), torch.tensor(0.0)).backward()
        for a, b in zip(inputs, ref_inputs):
            if a.requires_grad:
                torch.testing.assert_close(a.grad, b.grad, atol=atol * 10, rtol=rtol * 10)
        assert [g.kind for g in compiled.graphs] == ["forward", "backward"]
    return compiled


def kernel_count(compiled, kind="forward") -> int:
    return sum(len(g.kernels) for g in compiled.graphs if g.kind == kind)


def leaf(*shape):
    return torch.randn(*shape).requires_grad_(True)


def test_pointwise_chain_is_one_kernel(compile_fn):
    def f(x, y):
        return ((x * 2 + y).sin() * x.exp()).relu() - y.cos()

    compiled = run_both(compile_fn, f, [torch.randn(8, 16), torch.randn(8, 16)], grad=False)
    assert len(compiled.kernels) == 1
    assert compiled.kernels[0].name.startswith("triton_poi_fused_")
    assert "def triton_poi_fused_" in compiled.kernels[0].source


def test_gelu_mlp(compile_fn):
    w1, b1, w2, b2 = leaf(32, 16), leaf(32), leaf(16, 32), leaf(16)

    def mlp(x, w1, b1, w2, b2):
        return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)

    compiled = run_both(compile_fn, mlp, [leaf(4, 16), w1, b1, w2, b2])
    fwd = next(g for g in compiled.graphs if g.kind == "forward")
    assert sum("addmm" in e for e in fwd.externs) == 2  # matmuls stay extern calls
    assert kernel_count(compiled) == 1  # the GELU between them is one fused kernel


def test_layer_norm_single_kernel(compile_fn):
    w, b = leaf(24), leaf(24)
    compiled = run_both(compile_fn, lambda x, w, b: F.layer_norm(x, (24,), w, b), [leaf(2, 5, 24), w, b])
    assert kernel_count(compiled) == 1
    assert compiled.kernels[0].name.startswith("triton_per_fused")


def test_rms_norm_single_kernel(compile_fn):
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    compiled = run_both(compile_fn, rms, [leaf(6, 32), leaf(32)])
    assert kernel_count(compiled) == 1


def test_softmax_single_kernel(compile_fn):
    compiled = run_both(compile_fn, lambda x: torch.softmax(x, -1), [leaf(7, 33)])
    assert kernel_count(compiled) == 1
    src = compiled.kernels[0].source
    assert "tl.max(" in src and "tl.sum(" in src and "tl.exp(" in src


def test_log_softmax_dim0(compile_fn):
    run_both(compile_fn, lambda x: F.log_softmax(x, 0), [leaf(9, 4)])


def test_attention_with_mask(compile_fn):
    B, H, T, D = 2, 2, 5, 8

    def attn(q, k, v, mask):
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D)
        s = s.masked_fill(mask, float("-inf"))
        return torch.softmax(s, -1) @ v

    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    compiled = run_both(compile_fn, attn, [leaf(B, H, T, D), leaf(B, H, T, D), leaf(B, H, T, D), mask])
    assert kernel_count(compiled) == 1  # scale + mask + softmax between the two bmm calls


def test_cross_entropy(compile_fn):
    target = torch.tensor([1, 0, 4, 2, 3, 1])
    run_both(compile_fn, lambda x, t: F.cross_entropy(x, t), [leaf(6, 5), target])


def test_residual_plus_norm(compile_fn):
    w, b = leaf(16), leaf(16)

    def block(x, r, w, b):
        h = x + r
        return h, F.layer_norm(h, (16,), w, b)

    compiled = run_both(compile_fn, block, [leaf(3, 16), leaf(3, 16), w, b])
    assert kernel_count(compiled) == 1


def test_reduction_then_broadcast_epilogue_is_fused(compile_fn):
    compiled = run_both(compile_fn, lambda x: x - x.mean(-1, keepdim=True), [torch.randn(4, 10)], grad=False)
    assert len(compiled.kernels) == 1
    assert compiled.graphs[0].kernels[0].source.count("tl.store(") == 1  # the mean lives in registers


def test_pointwise_with_mismatched_index_starts_a_new_kernel(compile_fn):
    def f(x):
        y = (x * 2).sin()
        return y, y.t() + 1  # y read transposed: cannot come from the same kernel's registers

    compiled = run_both(compile_fn, f, [torch.randn(5, 6)], grad=False)
    assert len(compiled.kernels) == 2


def test_unfused_schedule_matches_fused(tmp_path):
    from autograph.backends.triton.backend import TritonBackend

    def f(x, w):
        return F.layer_norm(x, (8,), w) * 2

    x, w = torch.randn(3, 8), torch.randn(8)
    gm = torch.fx.symbolic_trace(f)
    fused = TritonBackend(str(tmp_path / "a"))(gm, [x, w])
    unfused = TritonBackend(str(tmp_path / "b"), fuse=False)(gm, [x, w])
    torch.testing.assert_close(fused(x, w), unfused(x, w))
    assert len(unfused.kernels) > len(fused.kernels)


def test_wrapper_frees_intermediates(compile_fn):
    def f(x, w):
        h = F.linear(x.sin(), w)
        return F.linear(h.relu(), w)

    compiled = run_both(compile_fn, f, [torch.randn(4, 8), torch.randn(8, 8)], grad=False)
    assert "del buf" in compiled.wrapper_source
