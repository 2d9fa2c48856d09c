"""Steady step time of the tests/programs training steps: plain vs the import hook, one process.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_train_steps.py [--steps N] [--backend B] [--clock cpu|wall]

Each program's ``train.py`` is loaded twice: once under another module name (plain Python,
never selected) and once as the selected package through ``autograph.install``; both copies
build the same model and optimizer from the same seed and their steps are timed interleaved
in rounds of 10 steps after a warm-up that compiles the hooked one. Each program's line gives
plain's and the hook's median step, and the hook/plain ratio of each round pair: its median,
mean and spread (the interquartile range, and min..max). Timed by default on this thread's CPU
clock, which a loaded machine moves least.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import torch

PROGRAMS = Path(__file__).resolve().parents[1] / "tests" / "programs"


def _plain_copy(package: str):
    spec = importlib.util.spec_from_file_location(f"plain_{package}", PROGRAMS / package / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mlp(m):
    torch.manual_seed(0)
    model = m.MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    return lambda: m.train_step(model, opt, x, y)


def _cnn(m):
    torch.manual_seed(0)
    model = m.Net()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=100_000)
    x, y = torch.randn(8, 1, 8, 8), torch.randint(0, 10, (8,))
    return lambda: m.train_step(model, opt, sched, x, y)


def _transformer(m):
    torch.manual_seed(0)
    model = m.TinyLM()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    batches = torch.randint(0, 32, (2, 4, 9), generator=torch.Generator().manual_seed(1))

    def step():  # one optimizer step: two accumulated micro-steps, then the GradScaler-style step
        for batch in batches:
            m.micro_step(model, batch[:, :-1], batch[:, 1:], 1024.0, 2)
        return m.apply_step(model, opt, 1024.0)
    return step


def _eval_loop(m):
    torch.manual_seed(0)
    model = m.Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torch.randn(8, 12), torch.randint(0, 3, (8,))
    return lambda: m.train_step(model, opt, x, y)


BUILDERS = {"mlp_sgd": _mlp, "cnn_adamw": _cnn, "transformer_amp": _transformer, "eval_loop": _eval_loop}


def _round(step, n: int = 10, clock=time.perf_counter) -> float:
    t0 = clock()
    for _ in range(n):
        step()
    return (clock() - t0) / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30, help="timed rounds of 10 steps")
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="cpu",
                        help="cpu: this thread's CPU time (time.thread_time; with 1 torch thread a CPU step runs "
                             "in this thread), which other processes on a loaded machine barely move; wall: "
                             "perf_counter")
    args = parser.parse_args()
    sys.path.insert(0, str(PROGRAMS))
    torch.set_num_threads(1)
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    import autograph
    from autograph.settings import Settings

    plains = {name: _plain_copy(name) for name in BUILDERS}
    autograph.install(*BUILDERS, settings=Settings(backend=args.backend, compile_threshold=2))
    hooked = {name: importlib.import_module(f"{name}.train") for name in BUILDERS}
    print(f"{'program':<16} {'plain us':>9} {'hook us':>9} {'ratio med':>9} {'mean':>6} {'IQR':>13} "
          f"{'min..max':>13}   (backend {args.backend}, torch {torch.__version__}, 1 thread, "
          f"{args.steps} interleaved rounds of 10 steps, {args.clock} clock)")
    for name, build in BUILDERS.items():
        plain_step, hook_step = build(plains[name]), build(hooked[name])
        for _ in range(5):  # warm-up: the hooked step compiles
            plain_step(), hook_step()
        plain_t, hook_t = [], []
        for _ in range(args.steps):
            plain_t.append(_round(plain_step, clock=clock))
            hook_t.append(_round(hook_step, clock=clock))
        p, h = statistics.median(plain_t) * 1e6, statistics.median(hook_t) * 1e6
        ratios = sorted(b / a for a, b in zip(plain_t, hook_t))
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(f"{name:<16} {p:>9.1f} {h:>9.1f} {statistics.median(ratios):>9.3f} {statistics.fmean(ratios):>6.3f} "
              f"{q1:>6.3f}..{q3:<6.3f} {ratios[0]:>6.3f}..{ratios[-1]:<6.3f}")


if __name__ == "__main__":
    main()
