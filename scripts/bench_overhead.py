#!/usr/bin/env python
"""Per-call overhead of a cache hit: autograph vs torch.compile(backend="eager"), same process.

Prints, per case, the plain call time and the time *added* by each compiler
(µs and ratio to the plain call), plus autograph/torch.compile ratios.

``--runtime-only`` measures autograph's runtime alone (shim + guards + dispatch)
with a stand-in capture that installs the guards a capture would (TENSOR_MATCH
per tensor argument + global state) and runs the original function; without it
the real capture engine (``autograph.capture.api``) is used when present.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402


def one_op(x):
    return x + 1


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32),
                                       torch.nn.ReLU(), torch.nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


CLOCK = time.perf_counter


def per_call_us(fn, args, number: int, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = CLOCK()
        for _ in range(number):
            fn(*args)
        out.append((CLOCK() - t0) / number * 1e6)
    return out


def stand_in_capture():
    from autograph.guards.check import GuardSet
    from autograph.guards.model import global_state, tensor_match, id_match
    from autograph.guards.sources import LocalSource

    class Result:
        transformed_code = None
        graphs = resumes = breaks = ()
        no_tensor_work = False
        capture_seconds = compile_seconds = 0.0

    def capture(fn, args, kwargs, settings, *, wrap_nested):
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        guards = []
        for n, a in zip(names, args):
            if isinstance(a, torch.Tensor):
                guards.append(tensor_match(LocalSource(n), a))
            elif isinstance(a, torch.nn.Module):
                guards.append(id_match(LocalSource(n), a))
        guards += global_state()
        r = Result()
        r.fn, r.guards = fn, GuardSet(fn, guards)
        return r

    return capture


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime-only", action="store_true", help="stand-in capture: measure shim + guards only")
    ap.add_argument("--python-guards", action="store_true", help="disable the C fast path")
    ap.add_argument("--best", action="store_true",
                    help="report the best repeat instead of the median (steadier on a shared machine)")
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--cpu-time", action="store_true",
                    help="time with this thread's CPU clock (torch on 1 thread): ignores time spent "
                         "descheduled when other processes share the cores")
    opts = ap.parse_args()
    global CLOCK
    if opts.cpu_time:
        CLOCK = time.thread_time
        torch.set_num_threads(1)

    import autograph
    from autograph.guards import native
    from autograph.runtime import shim as shim_mod

    if opts.runtime_only:
        shim_mod.configure(capture=stand_in_capture())
    shim_mod.use_native(not opts.python_guards and native.load() is not None)
    torch._dynamo.config.cache_size_limit = 64

    mlp = MLP()
    cases = [
        ("one-op function", one_op, lambda f: f, (torch.randn(8),)),
        ("toy_example (1 break)", toy_example, lambda f: f, (torch.randn(8), torch.randn(8).abs())),
        ("3-layer MLP module", mlp, lambda f: f, (torch.randn(4, 16),)),
    ]
    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, guards: "
          f"{'C extension' if native.available() else 'generated Python'}, "
          f"capture: {'stand-in (runtime only)' if opts.runtime_only else 'autograph.capture'}, "
          f"{'best' if opts.best else 'median'} of {opts.repeat} interleaved repeats x {opts.number} calls, "
          f"{'thread CPU time' if opts.cpu_time else 'wall time'}")
    header = f"{'case':26} {'plain µs':>9} {'autograph +µs':>14} {'(x plain)':>9} {'torch.compile +µs':>18} {'(x plain)':>9} {'ag/tc':>6}"
    print(header)
    print("-" * len(header))
    if True:
        for name, fn, _, args in cases:
            ag = autograph.compile(fn)
            tc = torch.compile(fn, backend="eager")
            for f in (ag, tc, fn):
                for _ in range(3):
                    f(*args)  # warm up, capture
            plain, a, t = [], [], []
            for _ in range(opts.repeat):  # interleaved
                plain += per_call_us(fn, args, opts.number, 1)
                a += per_call_us(ag, args, opts.number, 1)
                t += per_call_us(tc, args, opts.number, 1)
            pick = min if opts.best else statistics.median
            p, am, tm = pick(plain), pick(a), pick(t)
            print(f"{name:26} {p:9.2f} {am - p:14.2f} {am / p:9.2f} {tm - p:18.2f} {tm / p:9.2f} "
                  f"{(am - p) / max(tm - p, 1e-9):6.2f}")


if __name__ == "__main__":
    main()
