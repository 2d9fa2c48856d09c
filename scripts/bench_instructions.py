#!/usr/bin/env python
"""Instructions per cache hit, counted by valgrind's callgrind: a measure of the hit path that
noise on a shared machine does not move.

Each row runs in a child process under ``valgrind --tool=callgrind --instr-atstart=no``; the child
warms the compiled function up, then counts only loops of ``--calls`` calls (callgrind's client
requests, from a small C helper compiled here into a temporary folder): the plain function, the
compiled one, and both again, in one process, so both see the same heap. glibc's fast bins are
off in the children (``GLIBC_TUNABLES=glibc.malloc.mxfast=0``): with them, how much a free or a
large allocation spends consolidating them depends on the process's whole allocation history
(imports, the capture), which moved the toy row's plain call by 2,000 instructions between two
loops of one process and the difference by 1,000 between two trees whose hit ran the same code.
What remains moves rows that run much Python (mlp: nn.Module calls) by a few thousand
instructions between trees: CPython's type-attribute cache (4,096 slots keyed by a type's version
tag and the name) collides differently after another import history (find_name_in_mro and
longer dict probes in the plain call, 250.3 k against 256.0 k on identical code).
Printed per row: instructions per plain call, per compiled call, the
difference (what a hit adds), and the instructions of a cold first call (capture, eager-backend
compile and one run, as ``bench_capture.py`` times it; the fewer allocations and hash orders a
capture meets make this count steady to a fraction of a percent, not exact). A background graph is kept on its eager version (``HOT_SECONDS``
raised: under valgrind every call is slow enough to look hot), as in ``bench_overhead.py``.
The rows are ``bench_overhead.py``'s cases.

    python scripts/bench_instructions.py [--rows one_op,toy,mlp] [--calls 1000] [--jobs 2] [--json PATH]

Needs ``valgrind`` and its headers (``valgrind/callgrind.h``) and a C compiler; ``bench_versus.py
--instructions`` runs it on two trees side by side.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
HELPER_C = """#include <valgrind/callgrind.h>
void count_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void count_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS; }
"""
ROWS = ("one_op", "toy", "mlp")
HIT_LOOPS = ("plain", "compiled", "plain", "compiled")  # the loops a "hit" child counts, in order


def build_helper(folder: Path) -> Path:
    """The client-request helper as a shared library in ``folder``."""
    (folder / "count.c").write_text(HELPER_C)
    lib = folder / "libcount.so"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", str(lib), str(folder / "count.c")],
                   check=True, capture_output=True, text=True)
    return lib


def child(row: str, calls: int, mode: str, helper: str) -> None:
    """Runs under callgrind: warm up, then count loops of ``calls`` calls only (``mode`` "hit": the
    plain function, the compiled one, then both again), or (``mode`` "cold") only the first call
    of the compiled function, as
    ``bench_capture.py`` times it: capture, compile (eager backend) and one run under no_grad,
    after autograph was warmed up on an unrelated function and its capture modules imported."""
    sys.path.insert(0, str(SCRIPTS))
    import torch

    torch.set_num_threads(1)
    import autograph
    from autograph.backends import background
    import bench_overhead as cases
    from autograph.guards import extension

    background.HOT_SECONDS = float("inf")
    extension.use_c_path(extension.load() is not None)
    fn, args = {
        "one_op": lambda: (cases.one_op, (torch.randn(8),)),
        "toy": lambda: (cases.toy_example, (torch.randn(8), torch.randn(8).abs())),
        "mlp": lambda: (cases.MLP(), (torch.randn(4, 16),)),
    }[row]()
    lib = ctypes.CDLL(helper)
    if mode == "cold":
        with torch.no_grad():
            autograph.reset()
            autograph.compile(lambda x: x * 2 + 1, backend="eager")(torch.randn(4))
            autograph.reset()
            import bench_capture  # its warm-up: every capture module imported (a once-per-process cost)

            bench_capture.import_capture_modules()
            f = autograph.compile(fn, backend="eager")
            lib.count_start()
            f(*args)
            lib.count_stop()
        return
    f = autograph.compile(fn)
    for _ in range(3):
        fn(*args)
        f(*args)
    for g in HIT_LOOPS:
        g = fn if g == "plain" else f
        lib.count_start()
        for _ in range(calls):
            g(*args)
        lib.count_stop()


def counted(row: str, calls: int, mode: str, helper: Path, folder: Path) -> list[int]:
    """Instructions of each counted loop of ``row`` (``mode``: see ``child``), in a child under callgrind."""
    out = folder / f"callgrind.{row}.{mode}.out"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "GLIBC_TUNABLES": "glibc.malloc.mxfast=0"}
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
           sys.executable, __file__, "--child", row, "--mode", mode, "--calls", str(calls), "--helper", str(helper)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    # the client requests' dumps, in order (the final one, at exit, is empty)
    dumps = sorted(folder.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]))
    totals = []
    for dump in dumps:
        found = re.search(r"^totals: (\d+)", dump.read_text(), re.MULTILINE)
        if found is None:
            raise RuntimeError(f"no instruction total in {dump}")
        totals.append(int(found.group(1)))
    return totals


def measure(rows: list[str], calls: int, jobs: int = 2) -> list[dict]:
    """Per row: instructions per plain call and per compiled call."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        helper = build_helper(folder)
        runs = [(row, mode) for row in rows for mode in ("hit", "cold")]
        with ThreadPoolExecutor(jobs) as pool:  # the children are independent processes
            totals = dict(zip(runs, pool.map(lambda rm: counted(rm[0], calls, rm[1], helper, folder), runs)))
        out = []
        for row in rows:
            loops = totals[row, "hit"]
            per_call = {g: sum(n for n, h in zip(loops, HIT_LOOPS) if h == g) / (calls * HIT_LOOPS.count(g))
                        for g in ("plain", "compiled")}
            out.append({"row": row, "plain": per_call["plain"], "autograph": per_call["compiled"],
                        "cold": totals[row, "cold"][0]})
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--calls", type=int, default=1000, help="calls per counted loop")
    parser.add_argument("--jobs", type=int, default=2, help="children run at once")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="hit", help=argparse.SUPPRESS)
    parser.add_argument("--helper", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.child:
        child(opts.child, opts.calls, opts.mode, opts.helper)
        return 0
    rows = measure(opts.rows.split(","), opts.calls, opts.jobs)
    print(f"instructions per call (callgrind, {opts.calls} calls counted)")
    print(f"{'row':10} {'plain':>10} {'autograph':>10} {'added':>10} {'cold call (M)':>14}")
    for r in rows:
        print(f"{r['row']:10} {r['plain']:10.0f} {r['autograph']:10.0f} {r['autograph'] - r['plain']:10.0f} "
              f"{r['cold'] / 1e6:14.1f}")
    if opts.json_path:
        Path(opts.json_path).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
