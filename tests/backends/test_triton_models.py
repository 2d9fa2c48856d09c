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
        torch.testing.assert_close(g, r, atol=atol * 10, rtol=rtol * 10, msg=lambda m, name=name: f"grad of {name}: {m}")
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


class LlamaBlock(nn.Module):
    """RMSNorm, rotary embeddings (rotate_half via cat), causal attention, SwiGLU MLP."""

    def __init__(self, d=32, heads=4, ctx=8, hidden=64):
        super().__init__()
        self.d, self.heads, self.ctx = d, heads, ctx
        self.n1, self.n2 = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d)), nn.Parameter(torch.ones(d))
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.gate, self.up, self.down = (nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False),
                                         nn.Linear(hidden, d, bias=False))
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(ctx).float(), inv)
        emb = torch.cat([freqs, freqs], -1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())
        self.register_buffer("mask", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)))

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    def rope(self, t):
        half = self.d // self.heads // 2
        rotated = torch.cat([-t[..., half:], t[..., :half]], -1)
        return t * self.cos + rotated * self.sin

    def forward(self, x):
        B, T, C, H = x.size(0), self.ctx, self.d, self.heads
        q, k, v = self.qkv(self.rms(x, self.n1)).split(C, dim=2)
        q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
        q, k = self.rope(q), self.rope(k)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // H))
        att = att.masked_fill(~self.mask, float("-inf")).softmax(-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(B, T, C))
        h = self.rms(x, self.n2)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


@pytest.mark.slow
def test_llama_block_forward_backward(compile_fn):
    torch.manual_seed(0)
    compiled = compare_module(compile_fn, LlamaBlock(), [torch.randn(2, 8, 32, requires_grad=True)])
    externs = [e for g in compiled.graphs for e in g.externs]
    assert not any(e.startswith(("aten.cat", "aten.slice_scatter")) for e in externs), externs  # rotary fused


@pytest.mark.slow
def test_hf_gpt2_small_config_forward_backward(triton_backend):
    """transformers' GPT-2 (narrow config) through the backend; graphs come from torch.compile's
    capture here so that this test does not depend on autograph's capture room."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(n_layer=2, n_embd=32, n_head=4, vocab_size=100, n_positions=16,
                                  attn_pdrop=0.0, embd_pdrop=0.0, resid_pdrop=0.0)
    model = transformers.GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 100, (2, 8))
    graphs = []

    def backend(gm, example_inputs):
        compiled = triton_backend(gm, example_inputs)
        graphs.append(compiled)
        return compiled

    from torch import _dynamo

    _dynamo.reset()
    loss = torch.compile(model, backend=backend)(ids, labels=ids).loss
    got = torch.autograd.grad(loss, list(model.parameters()))
    ref_loss = model(ids, labels=ids).loss
    want = torch.autograd.grad(ref_loss, list(model.parameters()))
    torch.testing.assert_close(loss, ref_loss, atol=1e-5, rtol=1e-5)
    for (name, _), g, w in zip(model.named_parameters(), got, want):
        torch.testing.assert_close(g, w, atol=1e-4, rtol=1e-4, msg=lambda m, name=name: f"grad of {name}: {m}")
    assert graphs and all(g.fallback_reason is None for c in graphs for g in c.graphs)
    assert sum(len(c.kernels) for c in graphs) > 0
    _dynamo.reset()
