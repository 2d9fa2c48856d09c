"""A small transformer: bf16 autocast on CPU, GradScaler-style loss scaling, gradient accumulation."""
from __future__ import annotations

import hashlib

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 32, dim: int = 16, heads: int = 2, seq: int = 8) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, seq, dim))
        self.block = Block(dim, heads)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.head(self.block(self.emb(idx) + self.pos))


def micro_step(model, idx, targets, scale, accum):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(idx)
        loss = F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())
    (loss * scale / accum).backward()
    return loss.detach()


def apply_step(model, opt, scale):
    """GradScaler-style: unscale, skip the step on inf/nan, then clear the gradients."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    for g in grads:
        g.div_(scale)
    finite = all(bool(torch.isfinite(g).all()) for g in grads)
    if finite:
        opt.step()
    opt.zero_grad(set_to_none=True)
    return finite


def main(steps: int = 4, accum: int = 2) -> None:
    torch.manual_seed(0)
    model = TinyLM()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(1)
    data = torch.randint(0, 32, (steps * accum, 4, 9), generator=gen)
    scale = 1024.0
    for step in range(steps):
        losses = []
        for micro in range(accum):
            batch = data[step * accum + micro]
            losses.append(micro_step(model, batch[:, :-1], batch[:, 1:], scale, accum))
        ok = apply_step(model, opt, scale)
        print("loss", [x.item().hex() for x in losses], "stepped", ok)
    for name, p in model.named_parameters():
        print("param", name, hashlib.sha256(p.detach().numpy().tobytes()).hexdigest()[:16])
