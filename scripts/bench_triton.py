#!/usr/bin/env python
"""Benchmark autograph's Triton backend against eager and torch.compile (inductor). GPU only.

Each row is measured side by side in one process: eager, inductor and autograph
runs are interleaved, timed with CUDA events, and the median of many runs is
reported. Cold compile times (first call, fresh cache directories) are printed
for inductor and autograph. On a machine without CUDA it says so and exits 0.

    python scripts/bench_triton.py [--dtype float32|float16|bfloat16] [--runs 100] [--only NAME]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--only", default=None, help="run only benchmarks whose name contains this")
    parser.add_argument("--no-backward", action="store_true")
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("bench_triton: needs a CUDA GPU (none found); nothing measured.")
        return 0
    try:
        import triton  # noqa: F401
    except ImportError:  # triton is an optional extra (autograph[triton])
        print("bench_triton: needs triton installed; nothing measured.")
        return 0
    dtype = getattr(torch, args.dtype)
    rows = []
    for name, make in CASES.items():
        if args.only and args.only not in name:
            continue
        for train in ([False] if args.no_backward else [False, True]):
            rows.append(bench_case(name, make, dtype, train, args.runs))
            print_row(rows[-1], header=len(rows) == 1)
    summarize(rows)
    return 0


# ----------------------------------------------------------------- workloads
def cases():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Chain(nn.Module):  # six pointwise ops
        def forward(self, x, y):
            return ((x * y + 1).sin() * x.exp()).relu() - y.cos()

    class Norm(nn.Module):
        def __init__(self, d, rms):
            super().__init__()
            self.d, self.rms, self.w, self.b = d, rms, nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

        def forward(self, x):
            if self.rms:
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w
            return F.layer_norm(x, (self.d,), self.w, self.b)

    class Softmax(nn.Module):
        def forward(self, x):
            return torch.softmax(x, -1)

    class MLP(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc, self.proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            return self.proj(F.gelu(self.fc(x), approximate="tanh"))

    class Attention(nn.Module):
        def __init__(self, d, heads, ctx):
            super().__init__()
            self.d, self.heads, self.ctx = d, heads, ctx
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.register_buffer("mask", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)))

        def forward(self, x):
            B, T, C, H = x.size(0), self.ctx, self.d, self.heads
            q, k, v = self.qkv(x).split(C, dim=2)
            q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // H))
            att = att.masked_fill(~self.mask, float("-inf")).softmax(-1)
            return self.proj((att @ v).transpose(1, 2).reshape(B, T, C))

    class GPT2Block(nn.Module):
        def __init__(self, d, heads, ctx):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn, self.mlp = Attention(d, heads, ctx), MLP(d)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class LlamaBlock(nn.Module):
        def __init__(self, d, heads, ctx, hidden):
            super().__init__()
            self.n1, self.n2 = Norm(d, True), Norm(d, True)
            self.attn = Attention(d, heads, ctx)
            self.gate, self.up, self.down = nn.Linear(d, hidden, False), nn.Linear(d, hidden, False), nn.Linear(hidden, d, False)

        def forward(self, x):
            x = x + self.attn(self.n1(x))
            h = self.n2(x)
            return x + self.down(F.silu(self.gate(h)) * self.up(h))

    class Stack(nn.Module):
        def __init__(self, blocks):
            super().__init__()
            self.blocks = nn.ModuleList(blocks)

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    def act(*shape):
        return lambda dtype: [torch.randn(*shape, device="cuda", dtype=dtype)]

    return {
        "pointwise chain 6 ops": (Chain, lambda dtype: [torch.randn(4096, 4096, device="cuda", dtype=dtype)] * 2),
        "layernorm 8192x1024": (lambda: Norm(1024, False), act(8192, 1024)),
        "rmsnorm 8192x1024": (lambda: Norm(1024, True), act(8192, 1024)),
        "softmax 8192x1024": (Softmax, act(8192, 1024)),
        "gelu-mlp 4096x768": (lambda: MLP(768), act(8, 512, 768)),
        "attention block 8x512x768": (lambda: Attention(768, 12, 512), act(8, 512, 768)),
        "gpt2 (6 layers, 768)": (lambda: Stack([GPT2Block(768, 12, 512) for _ in range(6)]), act(8, 512, 768)),
        "llama (6 layers, 1024)": (lambda: Stack([LlamaBlock(1024, 16, 512, 2816) for _ in range(6)]), act(8, 512, 1024)),
    }


CASES = {}


# ----------------------------------------------------------------- measuring
def bench_case(name, make, dtype, train, runs):
    import torch

    from autograph.backends.triton.backend import TritonBackend

    torch.manual_seed(0)
    module_cls, make_inputs = make
    module = module_cls().cuda().to(dtype)
    inputs = make_inputs(dtype)
    if train:
        inputs = [t.detach().requires_grad_(True) for t in inputs]
    else:
        module.requires_grad_(False)

    def step(fn):
        def run():
            out = fn(*inputs)
            if train:
                out.float().sum().backward()
            return out

        return run

    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        gm = torch.fx.symbolic_trace(module)
        ours = TritonBackend(cache_dir=cache)(gm, inputs)
        step(ours)()
        torch.cuda.synchronize()
        ours_cold = time.perf_counter() - start
    import torch._dynamo

    torch._dynamo.reset()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache  # cold: no reuse of earlier runs
        start = time.perf_counter()
        ind = torch.compile(module)
        step(ind)()
        torch.cuda.synchronize()
        ind_cold = time.perf_counter() - start
        fns = {"eager": step(module), "inductor": step(ind), "autograph": step(ours)}
        times = interleaved(fns, runs)
    ref = module(*inputs)
    got = ours(*inputs)
    ok = torch.allclose(got.float(), ref.float(), atol=1e-2 if dtype != torch.float32 else 1e-3, rtol=1e-2)
    return {"name": name, "mode": "fwd+bwd" if train else "fwd", **times, "ind_cold": ind_cold,
            "ours_cold": ours_cold, "ok": ok, "kernels": len(ours.kernels)}


def interleaved(fns, runs):
    import torch

    for fn in fns.values():
        for _ in range(3):
            fn()
    samples = {k: [] for k in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples[name].append(start.elapsed_time(end))
    return {k: statistics.median(v) for k, v in samples.items()}


def print_row(r, header=False):
    if header:
        print(f"{'workload':28} {'mode':8} {'eager ms':>9} {'inductor':>9} {'autograph':>9} "
              f"{'vs eager':>9} {'vs ind':>7} {'cold ind s':>10} {'cold ours s':>11} {'kernels':>7} ok")
    print(f"{r['name']:28} {r['mode']:8} {r['eager']:9.3f} {r['inductor']:9.3f} {r['autograph']:9.3f} "
          f"{r['eager'] / r['autograph']:8.2f}x {r['inductor'] / r['autograph']:6.2f}x "
          f"{r['ind_cold']:10.2f} {r['ours_cold']:11.2f} {r['kernels']:7d} {'yes' if r['ok'] else 'NO'}")


def summarize(rows):
    if not rows:
        return
    geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
    print()
    print(f"geomean speedup vs eager: {geo([r['eager'] / r['autograph'] for r in rows]):.2f}x; "
          f"vs inductor: {geo([r['inductor'] / r['autograph'] for r in rows]):.2f}x (not clipped)")
    print(f"geomean cold compile ours/inductor: {geo([r['ours_cold'] / r['ind_cold'] for r in rows]):.2f}")


if __name__ == "__main__":
    CASES.update(cases())
    sys.exit(main())
