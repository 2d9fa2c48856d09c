"""Steady step time of the tests/programs training steps: plain vs the import hook, one process.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_train_steps.py [--steps N] [--backend B]

Each program's ``train.py`` is loaded twice: once under another module name (plain Python,
never selected) and once as the selected package through ``autograph.install``; both copies
build the same model and optimizer from the same seed and their steps are timed interleaved
(median of N rounds of 10 steps each) after a warm-up that compiles the hooked one.
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


BUILDERS = {"mlp_sgd": _mlp, "cnn_adamw": _cnn}


def _round(step, n: int = 10) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t0) / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30, help="timed rounds of 10 steps")
    parser.add_argument("--backend", default="eager")
    args = parser.parse_args()
    sys.path.insert(0, str(PROGRAMS))
    torch.set_num_threads(1)
    import autograph
    from autograph.settings import Settings

    plains = {name: _plain_copy(name) for name in BUILDERS}
    autograph.install(*BUILDERS, settings=Settings(backend=args.backend, compile_threshold=2))
    hooked = {name: importlib.import_module(f"{name}.train") for name in BUILDERS}
    print(f"{'program':<12} {'plain us':>10} {'hook us':>10} {'ratio':>7}   (backend {args.backend}, torch "
          f"{torch.__version__}, 1 thread)")
    for name, build in BUILDERS.items():
        plain_step, hook_step = build(plains[name]), build(hooked[name])
        for _ in range(5):  # warm-up: the hooked step compiles
            plain_step(), hook_step()
        plain_t, hook_t = [], []
        for _ in range(args.steps):
            plain_t.append(_round(plain_step))
            hook_t.append(_round(hook_step))
        p, h = statistics.median(plain_t) * 1e6, statistics.median(hook_t) * 1e6
        print(f"{name:<12} {p:>10.1f} {h:>10.1f} {h / p:>7.3f}")


if __name__ == "__main__":
    main()
