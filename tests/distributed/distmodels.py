"""Small models and training steps for the multi-process tests (importable, so the import hook
can select them: ``AUTOGRAPH_PACKAGES=tests.distributed.distmodels``)."""
from __future__ import annotations

import torch
import torch.nn as nn


class Net(nn.Module):
    """Three linear layers: several DDP buckets when ``bucket_cap_mb`` is tiny."""

    def __init__(self, d_in: int = 16, d: int = 64, d_out: int = 4):
        super().__init__()
        self.a = nn.Linear(d_in, d)
        self.b = nn.Linear(d, d)
        self.c = nn.Linear(d, d_out)

    def forward(self, x):
        return self.c(torch.relu(self.b(torch.relu(self.a(x)))))


class Block(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.lin = nn.Linear(d, d)

    def forward(self, x):
        return x + torch.relu(self.lin(self.norm(x)))


class Stack(nn.Module):
    """Blocks in a ModuleList between an input and an output layer (FSDP2: one unit per block)."""

    def __init__(self, d_in: int = 8, d: int = 16, n: int = 3):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = block(h)
        return self.out(h).squeeze(-1)


def loss_fn(pred, target):
    return ((pred - target) ** 2).mean()
