#!/usr/bin/env python
"""Instructions per cache hit, counted by valgrind's callgrind: a measure of the hit path that
noise on a shared machine does not move.

Each row runs in a child process under ``valgrind --tool=callgrind --instr-atstart=no``; the child
warms the compiled function up, then counts only the loop of ``--calls`` hits (callgrind's client
requests, from a small C helper compiled here into a temporary folder), and the same loop over
the plain function. Printed per row: instructions per plain call, per compiled call, the
difference (what a hit adds), and the instructions of a cold first call (capture, eager-backend
compile and one run, as ``bench_capture.py`` times it; the fewer allocations and hash orders a
capture meets make this count steady to a fraction of a percent, not exact). A background graph is kept on its eager version (``HOT_SECONDS``
raised: under valgrind every call is slow enough to look hot), as in ``bench_overhead.py``.
The rows are ``bench_overhead.py``'s cases.

    python scripts/bench_instructions.py [--rows one_op,toy,mlp] [--calls 2000] [--jobs 2] [--json PATH]

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


def build_helper(folder: Path) -> Path:
    """The client-request helper as a shared library in ``folder``."""
    (folder / "count.c").write_text(HELPER_C)
    lib = folder / "libcount.so"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", str(lib), str(folder / "count.c")],
                   check=True, capture_output=True, text=True)
    return lib


def child(row: str, calls: int, mode: str, helper: str) -> None:
    """Runs under callgrind: warm up, then count ``calls`` calls only (``mode`` "plain" or
    "compiled"), or (``mode`` "cold") only the first call of the compiled function, as
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
    f = fn if mode == "plain" else autograph.compile(fn)
    for _ in range(3):
        f(*args)
    lib.count_start()
    for _ in range(calls):
        f(*args)
    lib.count_stop()


def counted(row: str, calls: int, mode: str, helper: Path, folder: Path) -> int:
    """Instructions of ``calls`` calls of ``row`` (``mode``: see ``child``), in a child under callgrind."""
    out = folder / f"callgrind.{row}.{mode}.out"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
           sys.executable, __file__, "--child", row, "--mode", mode, "--calls", str(calls), "--helper", str(helper)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    dumps = sorted(folder.glob(out.name + ".*"))  # the client request's dump (the final one is empty)
    text = dumps[0].read_text() if dumps else out.read_text()
    found = re.search(r"^totals: (\d+)", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no instruction total in {out}")
    return int(found.group(1))


def measure(rows: list[str], calls: int, jobs: int = 2) -> list[dict]:
    """Per row: instructions per plain call and per compiled call."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        helper = build_helper(folder)
        runs = [(row, mode) for row in rows for mode in ("plain", "compiled", "cold")]
        with ThreadPoolExecutor(jobs) as pool:  # the children are independent processes
            totals = dict(zip(runs, pool.map(lambda rm: counted(rm[0], calls, rm[1], helper, folder), runs)))
        return [{"row": row, "plain": totals[row, "plain"] / calls, "autograph": totals[row, "compiled"] / calls,
                 "cold": totals[row, "cold"]} for row in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2, help="children run at once")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="compiled", help=argparse.SUPPRESS)
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
