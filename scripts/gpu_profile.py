#!/usr/bin/env python
"""Where the GPU time goes: the CUDA kernels of one workload of ``scripts/gpu_check.py``, for
Inductor and autograph's Triton backend side by side (torch.profiler, self CUDA time per kernel).

    python scripts/gpu_profile.py [--workload "gpt2 block fwd"] [--calls 20] [--cpu-profile] [--cold-profile]

Needs a CUDA device. Prints, per compiler, the kernels sorted by total CUDA time with their
counts per call, and the number of kernel launches per call (the CPU-side cost).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    import torch
    from torch.profiler import ProfilerActivity, profile

    import gpu_check
    from autograph.backends.triton.backend import TritonBackend

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", default=None, help="a name fragment (repeatable)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rows", type=int, default=25, help="kernels listed per compiler")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes, no Inductor: checks the script")
    parser.add_argument("--cpu-profile", action="store_true",
                        help="also cProfile the calls: where each compiler's CPU time per call goes")
    parser.add_argument("--cold-profile", action="store_true",
                        help="cProfile each compiler's first call (its cold compile), cumulative times")
    opts = parser.parse_args(argv)
    device = "cpu" if opts.dry_run else "cuda"
    activity = ProfilerActivity.CPU if opts.dry_run else ProfilerActivity.CUDA
    sync = (lambda: None) if opts.dry_run else torch.cuda.synchronize
    wanted = opts.workload or ["gpt2 block fwd b", "pointwise chain 16"]
    compilers = {"eager": lambda m: m, "inductor": lambda m: torch.compile(m),
                 "autograph": lambda m: torch.compile(m, backend=TritonBackend(tempfile.mkdtemp()))}
    if opts.dry_run:
        compilers.pop("inductor")
    for name, (make, make_inputs, train) in gpu_check.workloads(device, opts.dry_run).items():
        if not any(w in name for w in wanted):
            continue
        for label, compile_fn in compilers.items():
            torch.manual_seed(0)
            module = make().to(device, torch.bfloat16)
            step = _step(compile_fn(module), make_inputs(), train)
            if opts.cold_profile and label != "eager":
                _cold_profile(step, label, name, opts.rows, sync)
            for _ in range(3):
                step()
            sync()
            with profile(activities=[activity]) as prof:
                for _ in range(opts.calls):
                    step()
                sync()
            events = [e for e in prof.key_averages() if opts.dry_run or getattr(e, "self_device_time_total", 0)]
            events.sort(key=lambda e: -getattr(e, "self_device_time_total", 0))
            launches = sum(e.count for e in events) / opts.calls
            total = sum(getattr(e, "self_device_time_total", 0) for e in events) / opts.calls
            print(f"\n== {name} / {label}: {launches:.0f} kernels per call, {total / 1e3:.3f} ms GPU per call")
            for e in events[:opts.rows]:
                print(f"  {getattr(e, 'self_device_time_total', 0) / opts.calls:9.1f} us  x{e.count / opts.calls:4.1f}  "
                      f"{e.key[:110]}")
            if opts.cpu_profile:
                _cpu_profile(step, opts.calls, opts.rows, sync)
    return 0


def _cold_profile(step, label: str, name: str, rows: int, sync) -> None:
    """Where a first call's time goes: Dynamo, AOTAutograd, the backend's code generation, the
    kernels' compiles (the wait for the compile threads) and autotuning (cumulative times)."""
    import cProfile
    import time

    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    step()
    sync()
    profiler.disable()
    print(f"\n== cold first call of {name} / {label}: {time.perf_counter() - start:.2f} s under cProfile")
    _print_stats(profiler, ("cumulative", rows), ("cumulative", r"aot_module_simplified|partition|compile_aten|"
                 r"_generate|precompile|quick_benchmark|do_bench|autotuner|compile_fx|fx_codegen|async_compile|wait|"
                 r"load_kernel|_bench|lowering"))


def _cpu_profile(step, calls: int, rows: int, sync) -> None:
    """The Python functions the calls spend their CPU time in (cProfile, own time first)."""
    import cProfile
    import time

    start = time.perf_counter()
    for _ in range(calls):
        step()
    sync()
    plain = (time.perf_counter() - start) / calls
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        step()
    sync()
    profiler.disable()
    print(f"  wall per call without the profiler: {plain * 1e3:.3f} ms")
    _print_stats(profiler, ("tottime", rows), ("cumulative", rows))


def _print_stats(profiler, *listings: tuple[str, int | str]) -> None:
    """Print ``profiler``'s rows for each ``(sort key, row count or name pattern)``, blank lines dropped."""
    import io
    import pstats

    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    for key, restriction in listings:
        stats.sort_stats(key).print_stats(restriction)
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


def _step(fn, inputs, train: bool):
    import torch

    def step():
        if train:
            fn(*inputs).float().sum().backward()
        else:
            with torch.no_grad():
                fn(*inputs)

    return step


if __name__ == "__main__":
    sys.exit(main())
