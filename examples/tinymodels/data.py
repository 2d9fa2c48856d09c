"""Synthetic token batches (denied in config/autograph.yaml: data code is not compiled)."""
from __future__ import annotations

import torch


def batches(steps: int, batch: int = 8, length: int = 17, vocab: int = 64, seed: int = 0):
    """A learnable toy task: each sequence counts upward modulo ``vocab``."""
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        start = torch.randint(0, vocab, (batch, 1), generator=generator)
        yield (start + torch.arange(length)) % vocab
