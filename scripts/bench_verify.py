#!/usr/bin/env python
"""What verify mode costs per checked call, next to a plain compiled call and an eager call.

    .venv/bin/python scripts/bench_verify.py [--size 256] [--repeat 200]

A verified call copies the arguments, runs the original function on the copies and the
compiled entry on the real arguments, and compares; after ``verify_calls`` calls of an
entry it costs nothing more. Prints medians in microseconds.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

import autograph  # noqa: E402
from autograph.settings import Settings, set_current_settings  # noqa: E402


def block(x, w, b):
    h = torch.relu(x @ w + b)
    return (h * h).sum(dim=-1), h


def _median_us(fn, args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=200)
    options = parser.parse_args()
    torch.set_num_threads(1)
    n = options.size
    args = (torch.randn(n, n), torch.randn(n, n), torch.randn(n))
    eager = _median_us(block, args, options.repeat)
    compiled = autograph.compile(block, backend="eager")
    compiled(*args)
    plain = _median_us(compiled, args, options.repeat)
    set_current_settings(Settings(backend="eager", verify=True, verify_calls=options.repeat + 1))
    autograph.reset()
    verified_fn = autograph.compile(block, backend="eager")
    verified_fn(*args)
    verified = _median_us(verified_fn, args, options.repeat)
    set_current_settings(None)
    print(f"size {n}x{n}, 1 thread, median of {options.repeat}: eager {eager:.0f} us, compiled {plain:.0f} us, "
          f"verified compiled call {verified:.0f} us ({verified / plain:.2f}x the compiled call; "
          f"{verified - plain - eager:.0f} us for copies and comparison)")


if __name__ == "__main__":
    main()
