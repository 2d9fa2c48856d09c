#!/usr/bin/env python
"""Cold capture time: autograph vs torch.compile(backend="eager"), side by side in one process.

Each row times the first call after a reset of both systems' caches (capture +
compile + one run) minus the plain eager call, median over --repeat resets.
Both systems are warmed up on an unrelated function first, so one-time imports
(fake tensors, FX) are not charged to the first row of either, and every module of
``autograph.capture`` is imported (families are imported on first use).

    python scripts/bench_capture.py [--repeat 3] [--rows one_op,toy,mlp,gpt2,llama] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from typing import Any, Callable

import torch
import torch._dynamo

import autograph
from autograph.testing.models import build


def one_op(x):
    return x + 1


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def _mlp() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                               torch.nn.ReLU(), torch.nn.Linear(64, 10))


def _rows() -> dict[str, Callable[[], tuple[Callable, tuple, dict]]]:
    def hf(name: str):
        def make():
            model, kwargs = build(name)
            return model.eval(), (), kwargs
        return make

    return {
        "one_op": lambda: (one_op, (torch.randn(8),), {}),
        "toy": lambda: (toy_example, (torch.randn(10), torch.randn(10)), {}),
        "mlp": lambda: (_mlp(), (torch.randn(8, 64),), {}),
        "gpt2": hf("gpt2"),
        "llama": hf("llama"),
    }


def import_capture_modules() -> None:
    """Import every module of ``autograph.capture``: families are imported on their first use, a
    cost the process pays once, not each capture (the first row would carry it otherwise)."""
    import importlib
    import pkgutil

    import autograph.capture as capture

    for info in pkgutil.walk_packages(capture.__path__, "autograph.capture."):
        try:
            importlib.import_module(info.name)
        except ImportError:
            pass


def _cold_seconds(compile_fn: Callable, reset: Callable, fn: Callable, args: tuple, kwargs: dict,
                  repeat: int) -> float:
    times = []
    with torch.no_grad():
        for _ in range(repeat):
            reset()
            compiled = compile_fn(fn)
            start = time.perf_counter()
            compiled(*args, **kwargs)
            first = time.perf_counter() - start
            start = time.perf_counter()
            fn(*args, **kwargs)
            plain = time.perf_counter() - start
            times.append(first - plain)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", default="one_op,toy,mlp,gpt2,llama")
    parser.add_argument("--json", dest="json_path")
    options = parser.parse_args(argv)

    systems: dict[str, tuple[Callable, Callable]] = {
        "autograph": (lambda f: autograph.compile(f, backend="eager"), autograph.reset),
        "torch.compile": (lambda f: torch.compile(f, backend="eager"), torch._dynamo.reset),
    }
    warm = torch.randn(4)
    for compile_fn, reset in systems.values():
        reset()
        compile_fn(lambda x: x * 2 + 1)(warm)
    import_capture_modules()

    rows = _rows()
    results: list[dict[str, Any]] = []
    print(f"cold capture, median of {options.repeat} (ms); machine: {platform.processor() or platform.machine()}, "
          f"{torch.get_num_threads()} threads, torch {torch.__version__}, Python {platform.python_version()}")
    print(f"{'row':<8} {'autograph':>12} {'torch.compile':>14} {'ratio':>7}")
    for name in options.rows.split(","):
        fn, args, kwargs = rows[name]()
        row: dict[str, Any] = {"row": name}
        for system, (compile_fn, reset) in systems.items():
            try:
                row[system] = _cold_seconds(compile_fn, reset, fn, args, kwargs, options.repeat) * 1e3
            except Exception as exc:  # a failing system is reported, not fatal
                row[system] = None
                row[f"{system} error"] = f"{type(exc).__name__}: {exc}"[:200]
        ours, theirs = row["autograph"], row["torch.compile"]
        row["ratio"] = ours / theirs if ours is not None and theirs else None
        results.append(row)
        fmt = lambda v: f"{v:.1f}" if v is not None else "error"
        print(f"{name:<8} {fmt(ours):>12} {fmt(theirs):>14} {fmt(row['ratio']) if row['ratio'] else '-':>7}")
    if options.json_path:
        with open(options.json_path, "w") as handle:
            json.dump(results, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
