#!/usr/bin/env python
"""Memory over a long run: changing shapes (automatic dynamic), a graph break, periodic resets.

A small transformer block compiled with ``autograph.compile`` is called with a new sequence
length every iteration (dynamic shapes, a data-dependent branch: a graph break and resume
functions) and ``autograph.reset()`` runs every ``--reset-every`` iterations. After each reset
(and ``gc.collect()``) it prints the process RSS and the number of live ``ShapeEnv`` objects;
both must stay flat.

    python scripts/bench_memory.py [--seconds 300] [--reset-every 40] [--backend eager]
"""
from __future__ import annotations

import argparse
import gc
import os
import time

import torch
import torch.nn.functional as F

import autograph


class Block(torch.nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))
        self.norm1, self.norm2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        if x.abs().max() > 1e6:  # data-dependent: a graph break
            x = x / x.abs().max()
        return x + self.mlp(self.norm2(x))


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def shape_envs() -> int:
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    return sum(1 for o in gc.get_objects() if isinstance(o, ShapeEnv))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--reset-every", type=int, default=40)
    parser.add_argument("--backend", default="eager")
    options = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Block()
    compiled = autograph.compile(model, backend=options.backend)
    start, iteration, samples = time.time(), 0, []
    while time.time() - start < options.seconds:
        T = 4 + iteration % 29
        x = torch.randn(2, T, 64)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x), atol=1e-5, rtol=1e-5)
        iteration += 1
        if iteration % options.reset_every == 0:
            autograph.reset()
            gc.collect()
            samples.append((time.time() - start, iteration, rss_mb(), shape_envs()))
            print(f"{samples[-1][0]:7.1f} s  iteration {iteration:6d}  RSS {samples[-1][2]:7.1f} MB  "
                  f"ShapeEnvs {samples[-1][3]}", flush=True)
    if samples:
        first, last = samples[0], samples[-1]
        print(f"RSS after the first reset {first[2]:.1f} MB, after the last {last[2]:.1f} MB "
              f"({last[2] - first[2]:+.1f} MB over {last[1] - first[1]} iterations); "
              f"ShapeEnvs {first[3]} -> {last[3]}")


if __name__ == "__main__":
    main()
