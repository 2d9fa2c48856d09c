"""Transformer blocks through the Triton backend, forward and backward, against eager."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

pytestmark = pytest.mark.triton


class Block(nn.Module):
    """A GPT-2 block (pre-norm attention + GELU-tanh MLP), as in GPT-2 small but narrower."""

    def __init__(self, d: int, heads: int, ctx: int):
        super().__init__()
        self.heads, self.d, self.ctx = heads, d, ctx
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.c_fc, self.mlp_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)).view(1, 1, ctx, ctx))

    def forward(self, x):
        # sizes from the config, not x.shape: the tests trace with torch.fx.symbolic_trace
        B, T, C = x.size(0), self.ctx, self.d
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // self.heads))
        att = att.masked_fill(~self.bias, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.c_proj(y)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class TinyGPT(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, ctx=8, layers=2):
        super().__init__()
        self.ctx = ctx
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads, ctx) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(self.ctx))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, self.head.out_features), targets.view(-1))


def compare_module(compile_fn, module, inputs, atol=2e-5, rtol=1e-4):
    params = dict(module.named_parameters())
    compiled = compile_fn(torch.fx.symbolic_trace(module), *inputs)
    out = compiled(*inputs)
    out = out[0] if isinstance(out, (tuple, list)) else out
    got_grads = torch.autograd.grad(out.sum(), list(params.values()) + [t for t in inputs if t.requires_grad])
    ref = module(*inputs)
    ref_grads = torch.autograd.grad(ref.sum(), list(params.values()) + [t for t in inputs if t.requires_grad])
    torch.testing.assert_close(out, ref, atol=atol, rtol=rtol)
    for (name, _), g, r in zip(list(params.items()) + [("input", None)] * 4, got_grads, ref_grads):
        torch.testing.assert_close(g, r, atol=atol * 10, rtol=rtol * 10, msg=lambda m: f"grad of {name}: {m}")
    assert [g.kind for g in compiled.graphs] == ["forward", "backward"]
    assert all(g.fallback_reason is None for g in compiled.graphs)
    return compiled


def test_gpt2_block_forward_backward(compile_fn):
    torch.manual_seed(0)
    block = Block(d=32, heads=4, ctx=8)
    x = torch.randn(2, 8, 32, requires_grad=True)
    compiled = compare_module(compile_fn, block, [x])
    fwd = compiled.graphs[0]
    # matmuls are extern calls; everything between them is fused: ln_1, q/k relayout, softmax(+scale+mask),
    # y relayout, residual+ln_2, gelu, final residual -> 7 kernels, not one per op
    assert 3 <= len(fwd.kernels) <= 7, [k.name for k in fwd.kernels]


@pytest.mark.slow
def test_tiny_gpt_loss_and_gradients(compile_fn):
    torch.manual_seed(0)
    model = TinyGPT()
    idx = torch.randint(0, 50, (2, 8))
    targets = torch.randint(0, 50, (2, 8))
    compare_module(compile_fn, model, [idx, targets])
