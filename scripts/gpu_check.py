#!/usr/bin/env python
"""The prepared GPU check of autograph's Triton backend (issue 28): correctness and timings.

Stages, each written to the JSON file as soon as it ends (a killed run still reports); the
timings run first (65% of the budget), the lowerings get the rest:

* ``lowerings`` (a): every registered lowering against eager on the device, in fp32/fp16/bf16
  (and the integer/bool dtypes of its cases), on edge values and on random values, with
  per-dtype tolerances (the cases of ``tests/backends/test_triton_exactness.py``). Each case
  reports ``exact`` (the exactness test's comparison: bits, sign of zero) and
  ``within_tolerance`` (``RTOL`` per dtype, absolute floor the dtype's smallest normal, zero's
  sign ignored): status ``ok``, ``within tolerance`` (last-ulp or flushed-denormal differences)
  or ``mismatch`` (a wrong value).
* ``timings`` (b): pointwise chains, softmax, LayerNorm, RMSNorm, a GELU MLP and a GPT-2-small
  block forward and forward+backward (batch 8, seq 512, bf16), each with eager, ``torch.compile``
  (Inductor) and autograph's Triton backend: CUDA events, warm-up, the median of N rounds that
  call every variant once in a new random order (the variants are timed interleaved in one
  process), cold-compile time (fresh caches), peak memory, and the largest difference from
  eager; beside the median per-call latency, ``back_to_back_ms_per_call``: N calls issued back
  to back between one pair of CUDA events, averaged (far below the latency: the case is bound
  by CPU overhead per call).

The Triton backend is reached through ``torch.compile(backend=TritonBackend(...))``: Dynamo
captures, autograph's backend compiles. Nothing here imports ``autograph.settings`` (pydantic
is not needed). The whole run stops itself before ``--budget-s`` (default 450 s) and always
exits 0; a stage or case that fails is recorded with its error.

    python scripts/gpu_check.py [--out gpu_check.json] [--budget-s 450] [--only timings]
    python scripts/gpu_check.py --dry-run      # CPU, tiny sizes, the interpreter (CI)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# fresh compile caches for both compilers: cold-compile times are cold
_CACHES = tempfile.mkdtemp(prefix="gpu-check-caches-")
os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(_CACHES, "triton"))
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(_CACHES, "inductor"))


class Report:
    """The JSON document, rewritten after every stage and case."""

    def __init__(self, path: Path, meta: dict):
        self.path = path
        self.data = {"meta": meta, "stages": {}}
        self.lock = threading.Lock()

    def stage(self, name: str) -> dict:
        return self.data["stages"].setdefault(name, {"status": "running", "results": []})

    def write(self) -> None:
        with self.lock:
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data, indent=1, default=str))
            os.replace(tmp, self.path)


def _meta(args) -> dict:
    import torch

    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except Exception:  # noqa: BLE001 - no git on the machine
        commit = None
    return {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "commit": commit,
            "python": platform.python_version(), "torch": torch.__version__, "triton": triton_version,
            "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() and not args.dry_run else "cpu",
            "dry_run": args.dry_run, "budget_s": args.budget_s}


# ------------------------------------------------------------------ stage (a): lowerings
def _exactness_module():
    """The exactness test's case builders, importable without pytest (a stand-in for its marks)."""
    try:
        import pytest  # noqa: F401
    except ImportError:
        class _Marks:
            def __getattr__(self, name):
                return lambda *a, **k: (a[0] if len(a) == 1 and callable(a[0]) and not k else (lambda f: f))

        sys.modules["pytest"] = types.SimpleNamespace(mark=_Marks(), fixture=lambda *a, **k: (a[0] if a else (lambda f: f)))
    import importlib

    return importlib.import_module("tests.backends.test_triton_exactness")


def _random_like(t):
    import torch

    if t.dtype.is_floating_point:
        return (torch.randn(t.shape, dtype=torch.float32) * 3).to(t.dtype)
    if t.dtype == torch.bool:
        return torch.rand(t.shape) > 0.5
    info = torch.iinfo(t.dtype)
    return torch.randint(max(info.min, -100), min(info.max, 100) + 1, t.shape, dtype=t.dtype)


def check_lowerings(report: Report, stage: dict, device: str, deadline: float, limit: int | None) -> None:
    import torch

    from autograph.backends.triton.backend import TritonBackend

    ex = _exactness_module()
    ops = ex.exercised_ops()[:limit] if limit else ex.exercised_ops()
    backend = TritonBackend(tempfile.mkdtemp(prefix="gpu-check-lowerings-"))
    torch.manual_seed(0)
    for op in ops:
        if time.monotonic() > deadline:
            stage["results"].append({"op": ex.key(op), "status": "skipped: stage time is up"})
            continue
        good, graph, flat = ex.op_graph(op)
        if not good:
            continue
        for variant in ("edge", "random"):
            row = {"op": ex.key(op), "values": variant}
            t0 = time.perf_counter()
            try:
                inputs = [(t if variant == "edge" else _random_like(t)).to(device) for t in flat]
                row.update(_compare_op(ex, op, backend, good, graph, inputs))
            except Exception as exc:  # noqa: BLE001 - recorded, the check goes on
                row.update(status="error", error=f"{type(exc).__name__}: {exc}"[:500])
            row["seconds"] = round(time.perf_counter() - t0, 3)
            stage["results"].append(row)
        report.write()
    bad = [r for r in stage["results"] if r.get("status") not in ("ok",) and not str(r.get("status")).startswith("skipped")]
    stage["summary"] = {"cases": len(stage["results"]), "not_ok": len(bad),
                        "ok": sum(r.get("status") == "ok" for r in stage["results"]),
                        "exact": sum(r.get("exact") is True for r in stage["results"]),
                        "within_tolerance": sum(r.get("within_tolerance") is True for r in stage["results"]),
                        "beyond_tolerance": sum(r.get("within_tolerance") is False for r in stage["results"])}


def _compare_op(ex, op, backend, good, graph, inputs) -> dict:
    import torch

    gm = ex._trace(graph, len(inputs))
    compiled = backend(gm, list(inputs))
    got = list(compiled(*inputs))
    fallback = compiled.graphs[0].fallback_reason if compiled.graphs else "no graph"  # after the first call
    want = list(graph(*inputs))
    approximate = ex.family(op) in ex.APPROXIMATE
    zero_sign = ex.family(op) not in ex.ZERO_SIGN_UNSPECIFIED
    errors, loose, i, offset = [], [], 0, 0
    for label, case_inputs, fn, _ in good:
        mine = inputs[offset:offset + len(case_inputs)]
        offset += len(case_inputs)
        n = len(op._schema.returns) if len(op._schema.returns) > 1 else 1
        for j in range(n):
            g, w = got[i], want[i]
            i += 1
            problem = ex.identical(g, w, approximate, zero_sign)
            if problem and approximate and w.dtype in (torch.bfloat16, torch.float16):
                # half-type maths in eager may round intermediates; the kernels compute in fp32
                up = fn(*[t.float() if t.dtype in (torch.bfloat16, torch.float16) else t for t in mine])
                up = (up if isinstance(up, (tuple, list)) else (up,))[j].to(w.dtype)
                problem = problem if ex.identical(g, up, approximate) else None
            if problem and approximate and w.dtype.is_floating_point and w.numel() > 1 and ex.family(op) in (
                    "sum", "prod", "mean", "var", "var_mean"):
                problem = None if _close_sum(g, w) else problem  # summation order differs on a GPU
            if problem:
                errors.append(f"[{label}] {problem}")
                far = beyond_tolerance(g, w)
                if far:
                    loose.append(f"[{label}] {far}")
    exact, within = not errors, not loose
    if fallback is not None and exact:
        status = "fell back to aten"
    else:
        status = "ok" if exact else ("within tolerance" if within else "mismatch")
    return {"status": status, "exact": exact, "within_tolerance": within,
            "kernels": len(compiled.kernels), "fallback": fallback, "errors": errors[:5], "tolerance_errors": loose[:5]}


# per-dtype tolerances of the `within_tolerance` verdict: a few units in the last place, and an
# absolute floor of the smallest normal number (a GPU flushing denormals to zero is within it);
# the sign of zero is ignored. Integer and bool results are compared exactly.
RTOL = {"torch.float64": 1e-12, "torch.float32": 1e-5, "torch.float16": 2e-3, "torch.bfloat16": 1.6e-2}


def beyond_tolerance(got, want) -> str | None:
    """None when ``got`` is ``want`` within the per-dtype tolerance; else the first element that is not."""
    import torch

    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{tuple(got.shape)} vs {want.dtype}{tuple(want.shape)}"
    if not want.dtype.is_floating_point:
        close = got == want
    else:
        rtol, atol = RTOL.get(str(want.dtype), 1e-5), torch.finfo(want.dtype).tiny
        g, w = got.double(), want.double()
        close = torch.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True) & (torch.isinf(g) == torch.isinf(w))
    if bool(close.all()):
        return None
    i = int((~close).flatten().nonzero()[0])
    return f"element {i}: compiled {got.flatten()[i].item()!r}, eager {want.flatten()[i].item()!r}"


def _close_sum(g, w) -> bool:
    import torch

    tol = {torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(w.dtype, 1e-4)
    return bool(torch.isclose(g.double(), w.double(), rtol=tol, atol=tol, equal_nan=True).all())


# ------------------------------------------------------------------ stage (b): timings
def workloads(device: str, dry: bool):
    """name -> (make module, make inputs, train?) at the check's sizes (tiny in a dry run)."""
    import math

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    B, T, C, H = (2, 16, 32, 2) if dry else (8, 512, 768, 12)
    rows = 64 if dry else 8192
    big = 128 if dry else 4096
    dtype = torch.bfloat16

    class Chain(nn.Module):
        def forward(self, x, y):
            return ((x * y + 1).sin() * x.exp()).relu() - y.cos()

    class LongChain(nn.Module):
        def forward(self, x):
            for _ in range(4):
                x = torch.tanh(x * 1.1 + 0.1) * torch.sigmoid(x)
            return x

    class Norm(nn.Module):
        def __init__(self, d, rms):
            super().__init__()
            self.d, self.rms = d, rms
            self.w, self.b = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

        def forward(self, x):
            if self.rms:
                return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * self.w
            return F.layer_norm(x, (self.d,), self.w, self.b)

    class TransposedAdd(nn.Module):  # one operand read through a transpose: 2-D tiles
        def forward(self, x, y):
            return x + y.t()

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
        def __init__(self, d, heads):
            super().__init__()
            self.d, self.heads = d, heads
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).split(c, dim=2)
            q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(b, t, c))

    class GPT2Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn, self.mlp = Attention(d, heads), MLP(d)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    def act(*shape, grad=False):
        return lambda: [torch.randn(*shape, device=device, dtype=dtype, requires_grad=grad)]

    _ = math
    return {
        f"pointwise chain 6 ops {big}x{big}": (Chain, lambda: act(big, big)() + act(big, big)(), False),
        f"pointwise chain 16 ops {big}x{big}": (LongChain, act(big, big), False),
        f"transposed add {big}x{big}": (TransposedAdd, lambda: act(big, big)() + act(big, big)(), False),
        f"softmax {rows}x1024": (Softmax, act(rows, 1024 if not dry else 64), False),
        f"softmax {rows // 4}x4096 (wide rows)": (Softmax, act(rows // 4, 4096 if not dry else 2048), False),
        f"layernorm {rows}x{C}": (lambda: Norm(C, False), act(rows, C), False),
        f"rmsnorm {rows}x{C}": (lambda: Norm(C, True), act(rows, C), False),
        f"gelu mlp {B * T}x{C}": (lambda: MLP(C), act(B * T, C), False),
        f"gpt2 block fwd b{B} t{T} c{C}": (lambda: GPT2Block(C, H), act(B, T, C), False),
        f"gpt2 block fwd+bwd b{B} t{T} c{C}": (lambda: GPT2Block(C, H), act(B, T, C, grad=True), True),
    }


class Timer:
    """CUDA events on a GPU, perf_counter on the CPU (dry run)."""

    def __init__(self, device: str):
        import torch

        self.cuda = device == "cuda"
        self.torch = torch

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def once_ms(self, step) -> float:
        """One call, timed alone (CUDA events after a synchronize: its latency, launch cost included)."""
        self.sync()
        if self.cuda:
            start, end = self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            return start.elapsed_time(end)
        t0 = time.perf_counter()
        step()
        return (time.perf_counter() - t0) * 1e3

    def back_to_back_ms(self, step, calls: int) -> float:
        """The average time per call of ``calls`` calls issued back to back between one pair of
        CUDA events: the device's throughput, which hides launch cost that the GPU overlaps.
        Far below ``median_ms`` means a case bound by CPU-side overhead per call."""
        self.sync()
        if not self.cuda:
            t0 = time.perf_counter()
            for _ in range(calls):
                step()
            return (time.perf_counter() - t0) * 1e3 / calls
        start, end = self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            step()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / calls


def _step(fn, inputs, train: bool):
    if not train:
        return lambda: fn(*inputs)

    def run():
        out = fn(*inputs)
        out.float().sum().backward()
        for t in inputs:
            t.grad = None
        return out

    return run


def time_workloads(report: Report, stage: dict, device: str, dry: bool, deadline: float, only: str | None,
                   with_inductor: bool) -> None:
    import torch

    from autograph.backends.triton.backend import TritonBackend

    timer = Timer(device)
    warmup, runs = (0, 1) if dry else (5, 30)
    for name, (make, make_inputs, train) in workloads(device, dry).items():
        if only and only not in name:
            continue
        row = {"workload": name, "train": train, "dtype": "bfloat16", "runs": runs}
        stage["results"].append(row)
        if time.monotonic() > deadline - (5 if dry else 45):
            row["status"] = "skipped: stage time is up"
            report.write()
            continue
        torch.manual_seed(0)
        model = make().to(device=device, dtype=torch.bfloat16)
        inputs = make_inputs()
        with torch.no_grad() if not train else torch.enable_grad():
            reference = model(*inputs).detach().float()
        compilers = {"eager": lambda m: m}
        if with_inductor:
            compilers["inductor"] = lambda m: torch.compile(m)
        compilers["autograph"] = lambda m: torch.compile(m, backend=TritonBackend(tempfile.mkdtemp(prefix="gpu-check-ag-")))
        add_reduce_overhead_column(compilers)
        torch._dynamo.reset()
        steps: dict = {}
        for label, wrap in compilers.items():  # each compiles on its first call (cold)
            if time.monotonic() > deadline - (2 if dry else 20):
                row[label] = {"status": "skipped: stage time is up"}
                continue
            try:
                row[label], steps[label] = _first_call(timer, wrap, model, inputs, train, reference, device)
            except Exception as exc:  # noqa: BLE001 - recorded, the check goes on
                row[label] = {"status": "error", "error": f"{type(exc).__name__}: {exc}"[:500],
                              "trace": traceback.format_exc()[-1500:]}
            report.write()
        try:
            _time_interleaved(timer, steps, row, warmup, runs, device)
        except Exception as exc:  # noqa: BLE001
            row["timing_error"] = f"{type(exc).__name__}: {exc}"[:500]
        torch._dynamo.reset()
        eager_ms = row.get("eager", {}).get("median_ms")
        for label in ("inductor", "autograph"):
            ms = row.get(label, {}).get("median_ms")
            if eager_ms and ms:
                row[label]["speedup_vs_eager"] = round(eager_ms / ms, 3)
        ind, ag = row.get("inductor", {}), row.get("autograph", {})
        if ind.get("median_ms") and ag.get("median_ms"):
            row["autograph_vs_inductor"] = round(ind["median_ms"] / ag["median_ms"], 3)
            if ind.get("cold_compile_s") and ag.get("cold_compile_s"):
                row["cold_compile_ratio"] = round(ag["cold_compile_s"] / ind["cold_compile_s"], 3)
        report.write()


def add_reduce_overhead_column(compilers: dict) -> None:
    """Optional extra column "autograph reduce-overhead": the Triton backend replaying inference
    graphs from CUDA graphs (torch.compile's mode="reduce-overhead"). Training graphs and CPU
    tensors are not recorded, so there it measures the same as "autograph"."""
    import torch

    from autograph.backends.triton.backend import TritonBackend

    compilers["autograph reduce-overhead"] = lambda m: torch.compile(
        m, backend=TritonBackend(tempfile.mkdtemp(prefix="gpu-check-ag-ro-"), cuda_graphs=True))


def _first_call(timer: Timer, wrap, model, inputs, train, reference, device) -> tuple[dict, object]:
    """Compile (the first call, timed: cold compile) and compare with eager; the step to time."""
    import torch

    fn = wrap(model)
    step = _step(fn, inputs, train)
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = step()  # first call: compiles
    timer.sync()
    cold = time.perf_counter() - t0
    diff = (out.detach().float() - reference).abs().max().item()
    scale = reference.abs().max().item() or 1.0
    return ({"status": "ok", "cold_compile_s": round(cold, 3), "max_abs_diff_vs_eager": diff,
             "max_diff_rel_to_max_vs_eager": diff / scale}, step)


def _time_interleaved(timer: Timer, steps: dict, row: dict, warmup: int, runs: int, device: str) -> None:
    """Median latency per variant over ``runs`` rounds, each round calling every variant once in a
    new random order (the GPU machine's CPU speed drifts: timing one variant after another
    would compare different moments); then each variant's back-to-back throughput and peak
    memory."""
    import random

    import torch

    rng = random.Random(0)
    for step in steps.values():
        for _ in range(warmup):
            step()
    samples: dict = {label: [] for label in steps}
    for _ in range(runs):
        order = list(steps)
        rng.shuffle(order)
        for label in order:
            samples[label].append(timer.once_ms(steps[label]))
    for label, step in steps.items():
        result = row[label]
        result["median_ms"] = round(statistics.median(samples[label]), 4)
        result["quartiles_ms"] = [round(q, 4) for q in statistics.quantiles(samples[label], n=4)] if runs > 1 else []
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        result["back_to_back_ms_per_call"] = round(timer.back_to_back_ms(step, runs), 4)
        result["back_to_back_calls"] = runs
        if device == "cuda":
            result["peak_mem_mb"] = round((torch.cuda.max_memory_allocated() - base) / 2**20, 2)


# ------------------------------------------------------------------ driver
def table(report: dict) -> str:
    """The timings as a markdown table (for docs/benchmarks.md)."""
    lines = ["| workload | eager ms | inductor ms | autograph ms | back-to-back ms/call eager / ind / ag | ag vs eager | ag vs inductor | cold compile ind / ag s | peak MB eager / ind / ag |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in report["stages"].get("timings", {}).get("results", []):
        e, i, a = (row.get(k, {}) for k in ("eager", "inductor", "autograph"))

        def ms(r):
            return f"{r['median_ms']:.3f}" if r.get("median_ms") else (r.get("status") or "-")[:20]

        lines.append(f"| {row.get('workload')} | {ms(e)} | {ms(i)} | {ms(a)} | "
                     f"{e.get('back_to_back_ms_per_call', '-')} / {i.get('back_to_back_ms_per_call', '-')} / "
                     f"{a.get('back_to_back_ms_per_call', '-')} | {a.get('speedup_vs_eager', '-')} | "
                     f"{row.get('autograph_vs_inductor', '-')} | {i.get('cold_compile_s', '-')} / {a.get('cold_compile_s', '-')} | "
                     f"{e.get('peak_mem_mb', '-')} / {i.get('peak_mem_mb', '-')} / {a.get('peak_mem_mb', '-')} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="gpu_check.json")
    parser.add_argument("--budget-s", type=float, default=450.0, help="the whole run stops before this")
    parser.add_argument("--only", choices=["lowerings", "timings"], default=None)
    parser.add_argument("--workload", default=None, help="time only workloads whose name contains this")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes, triton's interpreter")
    parser.add_argument("--ops", type=int, default=None, help="check only the first N lowerings")
    parser.add_argument("--inductor", action="store_true", help="also torch.compile in a dry run (needs a C++ compiler)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    out = Path(args.out)
    try:
        import torch
        report = Report(out, _meta(args))
    except Exception as exc:  # noqa: BLE001 - even this is reported
        out.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
        print(f"gpu_check: cannot start: {exc}")
        return 0
    report.write()
    device = "cpu" if args.dry_run else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        report.data["error"] = "no CUDA device (use --dry-run on a CPU)"
        report.write()
        print("gpu_check: needs a CUDA GPU (none found); --dry-run runs on the CPU.")
        return 0
    hard_stop = start + args.budget_s

    finished = threading.Event()

    def watchdog():  # a hung compile or kernel: write what there is and leave, with status 0
        if finished.wait(max(0.0, hard_stop + 15 - time.monotonic())):
            return  # main() returned in time (it may run inside another program: never exit that)
        report.data["error"] = "stopped by the watchdog at the time budget"
        report.write()
        print(f"gpu_check: time budget spent; partial results in {out}", flush=True)
        os._exit(0)

    threading.Thread(target=watchdog, name="gpu_check-watchdog", daemon=True).start()
    try:
        return _run_stages(args, report, device, start, hard_stop, out)
    finally:
        finished.set()


def _run_stages(args, report, device: str, start: float, hard_stop: float, out) -> int:
    # the timings first: they are what a short GPU lease is for; the lowerings get the rest
    stages = [("timings", 0.65), ("lowerings", 1.0)]
    for name, share in stages:
        if args.only and args.only != name:
            continue
        stage = report.stage(name)
        stage_deadline = start + args.budget_s * share if not args.only else hard_stop
        t0 = time.perf_counter()
        try:
            if name == "lowerings":
                check_lowerings(report, stage, device, stage_deadline, args.ops or (6 if args.dry_run else None))
            else:
                time_workloads(report, stage, device, args.dry_run, stage_deadline, args.workload,
                               with_inductor=not args.dry_run or args.inductor)
            stage["status"] = "done"
        except Exception as exc:  # noqa: BLE001 - the next stage still runs
            stage["status"] = "error"
            stage["error"] = f"{type(exc).__name__}: {exc}"
            stage["trace"] = traceback.format_exc()[-3000:]
        stage["seconds"] = round(time.perf_counter() - t0, 2)
        report.write()
        print(f"gpu_check: stage {name}: {stage['status']} in {stage['seconds']} s "
              f"{json.dumps(stage.get('summary', {}))}", flush=True)
    try:
        print(table(report.data))
    except Exception as exc:  # noqa: BLE001 - the JSON is written; the table is a convenience
        print(f"gpu_check: no table ({type(exc).__name__}: {exc})")
    print(f"gpu_check: results in {out}")
    return 0


if __name__ == "__main__":
    try:
        code = main()
    except BaseException:  # noqa: BLE001 - the check always exits 0
        traceback.print_exc()
        code = 0
    sys.exit(code)
