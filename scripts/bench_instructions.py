#!/usr/bin/env python
"""Instructions per cache hit, counted by valgrind's callgrind: a measure of the hit path that
noise on a shared machine does not move.

Each row runs in a child process under ``valgrind --tool=callgrind --instr-atstart=no``; the child
warms the compiled function up, then counts only the loop of ``--calls`` hits (callgrind's client
requests, from a small C helper compiled here into a temporary folder), and the same loop over
the plain function. Printed per row: instructions per plain call, per compiled call, and the
difference (what a hit adds). A background graph is kept on its eager version (``HOT_SECONDS``
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


def child(row: str, calls: int, plain: bool, helper: str) -> None:
    """Runs under callgrind: warm up, then count ``calls`` calls only."""
    sys.path.insert(0, str(SCRIPTS))
    import torch

    torch.set_num_threads(1)
    import autograph
    import autograph.backends.background as background
    import bench_overhead as cases
    from autograph.guards import extension

    background.HOT_SECONDS = float("inf")
    extension.use_c_path(extension.load() is not None)
    fn, args = {
        "one_op": lambda: (cases.one_op, (torch.randn(8),)),
        "toy": lambda: (cases.toy_example, (torch.randn(8), torch.randn(8).abs())),
        "mlp": lambda: (cases.MLP(), (torch.randn(4, 16),)),
    }[row]()
    f = fn if plain else autograph.compile(fn)
    for _ in range(3):
        f(*args)
    lib = ctypes.CDLL(helper)
    lib.count_start()
    for _ in range(calls):
        f(*args)
    lib.count_stop()


def counted(row: str, calls: int, plain: bool, helper: Path, folder: Path) -> int:
    """Instructions of ``calls`` calls of ``row`` (compiled or plain), in a child under callgrind."""
    out = folder / f"callgrind.{row}.{'plain' if plain else 'compiled'}.out"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
           sys.executable, __file__, "--child", row, "--calls", str(calls), "--helper", str(helper)]
    if plain:
        cmd.append("--plain")
    subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    dumps = sorted(folder.glob(out.name + ".*"))  # the client request's dump (the final one is empty)
    text = dumps[0].read_text() if dumps else out.read_text()
    found = re.search(r"^totals: (\d+)", text, re.M)
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
        runs = [(row, plain) for row in rows for plain in (True, False)]
        with ThreadPoolExecutor(jobs) as pool:  # the children are independent processes
            totals = list(pool.map(lambda rp: counted(rp[0], calls, rp[1], helper, folder), runs))
        per_call = {run: total / calls for run, total in zip(runs, totals)}
        return [{"row": row, "plain": per_call[row, True], "autograph": per_call[row, False]} for row in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2, help="children run at once")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--helper", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.child:
        child(opts.child, opts.calls, opts.plain, opts.helper)
        return 0
    rows = measure(opts.rows.split(","), opts.calls, opts.jobs)
    print(f"instructions per call (callgrind, {opts.calls} calls counted)")
    print(f"{'row':10} {'plain':>10} {'autograph':>10} {'added':>10}")
    for r in rows:
        print(f"{r['row']:10} {r['plain']:10.0f} {r['autograph']:10.0f} {r['autograph'] - r['plain']:10.0f}")
    if opts.json_path:
        Path(opts.json_path).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
