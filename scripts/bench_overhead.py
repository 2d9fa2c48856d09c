#!/usr/bin/env python
"""Per-call overhead of a cache hit: autograph vs torch.compile(backend="eager"), same process.

Prints, per case, the plain call time and the time *added* by each compiler
(µs and ratio to the plain call), plus autograph/torch.compile ratios of the
added time and of the whole call time (for models both compilers can be faster
than the plain call, removing Python overhead: then only the time ratio means
something).

``--runtime-only`` measures autograph's runtime alone (shim + guards + dispatch)
with a stand-in capture that installs the guards a capture would (TENSOR_MATCH
per tensor argument + global state) and runs the original function; without it
the real capture engine (``autograph.capture.engine.api``) is used when present.

``--llama-layer`` adds a measurement of a Llama decoder layer called through its compiled
``forward`` (the module guarded by its structure, parameters as graph inputs) against the plain
call, with the time of its guard check alone.
"""
from __future__ import annotations

import argparse
import json
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


def per_call_us(fn, args, number: int, repeat: int, kwargs: dict | None = None) -> list[float]:
    kwargs = kwargs or {}
    out = []
    for _ in range(repeat):
        t0 = CLOCK()
        for _ in range(number):
            fn(*args, **kwargs)
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


def llama_layer_side_by_side(opts, pick) -> None:
    """A Llama decoder layer called through its compiled ``forward`` (the entry guards the
    module's structure and reads its parameters as graph inputs) against the plain call, on the
    C hit path, same process."""
    try:
        from autograph.testing.models import build
        model, _ = build("llama")
    except ImportError:
        print("\nllama decoder layer: transformers is not installed, skipped")
        return
    import autograph
    from autograph.guards import extension, native

    model.eval()
    layer = model.model.layers[0]
    x = torch.randn(2, 16, 64)
    cos, sin = model.model.rotary_emb(x, torch.arange(16)[None])
    kwargs = {"attention_mask": None, "position_embeddings": (cos, sin)}
    views = {}
    with torch.no_grad():
        for mode in ("structure",):
            view = autograph.compile(layer, backend="eager")
            for _ in range(3):
                view(x, **kwargs)
            shim = type(view)._autograph_shim
            assert len(shim.entries) == 1, shim.entries
            views[mode] = (view, shim.entries[0])
        number = max(opts.number // 10, 50)
        times: dict[str, list[float]] = {"plain": []}
        checks: dict[str, list[float]] = {}
        for _ in range(opts.repeat):  # interleaved
            times["plain"] += per_call_us(layer, (x,), number, 1, kwargs)
            for mode, (view, entry) in views.items():
                times.setdefault(mode, []).extend(per_call_us(view, (x,), number, 1, kwargs))
                if native.available() and isinstance(entry.native_plan, tuple):
                    check = extension.load().check
                    args = (view, x)
                    assert check(entry.native_plan, args, kwargs) == -1
                    checks.setdefault(mode, []).extend(
                        per_call_us(check, (entry.native_plan, args, kwargs), number * 10, 1))
    plain = pick(times["plain"])
    print(f"\nllama decoder layer through its compiled forward (eager backend, {number} calls x "
          f"{opts.repeat} interleaved repeats):")
    print(f"{'entry':12} {'guards':>7} {'call µs':>9} {'+µs vs plain':>13} {'guard check µs':>15}")
    for mode, (_view, entry) in views.items():
        t = pick(times[mode])
        c = pick(checks[mode]) if mode in checks else float("nan")
        print(f"{mode:12} {len(entry.guards):7d} {t:9.2f} {t - plain:13.2f} {c:15.2f}")
    print(f"plain call {plain:.2f} µs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime-only", action="store_true", help="stand-in capture: measure shim + guards only")
    ap.add_argument("--python-guards", action="store_true", help="disable the C fast path")
    ap.add_argument("--best", action="store_true",
                    help="report the best repeat instead of the median (steadier on a shared machine)")
    ap.add_argument("--models", default="", help="also HF rows from autograph.testing.models, e.g. gpt2,llama "
                    "(steady state of the whole model; calls per repeat scaled down)")
    ap.add_argument("--llama-layer", action="store_true",
                    help="also a Llama decoder layer's compiled forward: module guarded by structure "
                         "(parameters as inputs) against the plain call")
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--json", dest="json_path", help="also write the rows here (µs per call)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time with this thread's CPU clock (torch on 1 thread): ignores time spent "
                         "descheduled when other processes share the cores")
    opts = ap.parse_args()
    global CLOCK
    if opts.cpu_time:
        CLOCK = time.thread_time
        torch.set_num_threads(1)

    import autograph
    from autograph.guards import extension, native
    from autograph.runtime import shim as shim_mod

    if opts.runtime_only:
        shim_mod.configure(capture=stand_in_capture())
    extension.use_c_path(not opts.python_guards and extension.load() is not None)
    torch._dynamo.config.cache_size_limit = 64

    mlp = MLP()
    cases = [
        ("one-op function", one_op, (torch.randn(8),), {}, opts.number),
        ("toy_example (1 break)", toy_example, (torch.randn(8), torch.randn(8).abs()), {}, opts.number),
        ("3-layer MLP module", mlp, (torch.randn(4, 16),), {}, opts.number),
    ]
    for name in filter(None, opts.models.split(",")):
        from autograph.testing.models import build

        model, kwargs = build(name)
        cases.append((f"{name} (eval)", model.eval(), (), kwargs, max(opts.number // 50, 10)))
    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, guards: "
          f"{'C extension' if native.available() else 'generated Python'}, "
          f"capture: {'stand-in (runtime only)' if opts.runtime_only else 'autograph.capture'}, "
          f"{'best' if opts.best else 'median'} of {opts.repeat} interleaved repeats x {opts.number} calls, "
          f"{'thread CPU time' if opts.cpu_time else 'wall time'}")
    header = (f"{'case':26} {'plain µs':>9} {'autograph +µs':>14} {'(x plain)':>9} {'torch.compile +µs':>18} "
              f"{'(x plain)':>9} {'added ag/tc':>11} {'time ag/tc':>10}")
    print(header)
    print("-" * len(header))
    rows = []
    if True:
        for name, fn, args, kwargs, number in cases:
            ag = autograph.compile(fn)
            tc = torch.compile(fn, backend="eager")
            for f in (ag, tc, fn):
                for _ in range(3):
                    f(*args, **kwargs)  # warm up, capture
            plain, a, t = [], [], []
            for _ in range(opts.repeat):  # interleaved
                plain += per_call_us(fn, args, number, 1, kwargs)
                a += per_call_us(ag, args, number, 1, kwargs)
                t += per_call_us(tc, args, number, 1, kwargs)
            pick = min if opts.best else statistics.median
            p, am, tm = pick(plain), pick(a), pick(t)
            added = f"{(am - p) / (tm - p):11.2f}" if tm - p > 0 and am - p > 0 else f"{'n/a':>11}"
            print(f"{name:26} {p:9.2f} {am - p:14.2f} {am / p:9.2f} {tm - p:18.2f} {tm / p:9.2f} "
                  f"{added} {am / tm:10.2f}")
            rows.append({"row": name, "plain_us": p, "autograph_us": am, "torch_compile_us": tm})
    if opts.json_path:
        Path(opts.json_path).write_text(json.dumps(rows, indent=2))
    if opts.llama_layer and not opts.runtime_only:
        llama_layer_side_by_side(opts, min if opts.best else statistics.median)


if __name__ == "__main__":
    main()
