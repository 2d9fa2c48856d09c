"""Guard cost of one steady training step, shim by shim, for the tests/programs scripts.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_guard_passes.py [program ...]

Runs each program's step under the import hook (backend eager) until it is compiled, records the
arguments every compiled shim of the step is called with (train_step and each resume function
after a graph break), then times the guard dispatch of each shim alone on those arguments, on
this thread's CPU clock (best of 7). Each shim counts once (transformer_amp's step calls its
micro-step shims twice); the sum is what one pass over the step's shims pays for guards.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def _best(fn, n: int = 5000) -> float:
    best = float("inf")
    for _ in range(7):
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - t0) / n)
    return best * 1e6


def guard_costs(name: str) -> list[tuple[str, int, float]]:
    """(shim, guards, microseconds per dispatch) for every compiled shim one step calls."""
    from autograph.runtime import shim as shims

    step = _BUILDERS[name](importlib.import_module(f"{name}.train"))
    for _ in range(6):
        step()
    seen: dict = {}
    tables = {s: s._table for s in shims.all_shims() if s._table[0]}
    for s, (entries, plans, fns) in tables.items():
        def record(*args, _shim=s, _fn=fns[0], **kwargs):
            seen.setdefault(_shim, (args, kwargs))
            return _fn(*args, **kwargs)
        s._table = (entries, plans, (record,) + fns[1:])
    try:
        step()
    finally:
        for s, table in tables.items():
            s._table = table
    return [(s.fn.__qualname__, sum(len(e.guards) for e in s._table[0]),
             _best(lambda s=s, a=a, k=k: shims._dispatch(s._table[1], a, k))) for s, (a, k) in seen.items()]


def main() -> None:
    global _BUILDERS
    sys.path[:0] = [str(HERE), str(HERE.parent / "tests" / "programs")]
    from bench_train_steps import BUILDERS as _BUILDERS

    parser = argparse.ArgumentParser()
    parser.add_argument("programs", nargs="*", default=list(_BUILDERS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    import autograph
    from autograph.settings import Settings

    autograph.install(*args.programs, settings=Settings(backend="eager", compile_threshold=2))
    for name in args.programs:
        rows = guard_costs(name)
        print(f"{name}: {len(rows)} compiled shims, {sum(r[2] for r in rows):.2f} us of guards, one call each")
        for qualname, n, us in rows:
            print(f"    {qualname:<44} {n:>3} guards {us:>6.2f} us")


_BUILDERS: dict = {}

if __name__ == "__main__":
    main()
