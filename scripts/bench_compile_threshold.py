#!/usr/bin/env python
"""What ``compile_threshold`` costs and saves on a whole program run under the import hook.

Runs ``SCRIPT`` (in its own directory, a fresh process each time) with
``AUTOGRAPH_PACKAGES=PACKAGES`` and each threshold, and reads the run report: captures,
capture + compile seconds, functions captured although they ran at most ``--once`` times,
and calls that ran eagerly while cold. The wall time is the whole process.

    python scripts/bench_compile_threshold.py [--thresholds 1,2,3,5,10] [--backend eager]
        [--packages model] [--script tests/programs/nanogpt/train.py] [--json PATH] [-- script args]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_once(script: Path, packages: str, threshold: int, backend: str, args: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
        env.update(AUTOGRAPH_PACKAGES=packages, AUTOGRAPH_COMPILE_THRESHOLD=str(threshold),
                   AUTOGRAPH_BACKEND=backend, AUTOGRAPH_REPORT=str(report), AUTOGRAPH_CONFIG="",
                   PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, script.name, *args], cwd=script.parent, env=env,
                              capture_output=True, text=True, timeout=3600)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"threshold {threshold}: the program failed:\n{proc.stderr[-3000:]}")
        return {"wall": wall, "report": json.loads(report.read_text())}


def summarise(threshold: int, run: dict, once: int) -> dict:
    functions = run["report"]["functions"]
    top = [f for f in functions if not f["resume_of"]]
    return {
        "threshold": threshold,
        "captures": sum(f["captures"] for f in functions),
        "failed_captures": sum(len(f["errors"]) for f in functions),
        "capture_s": round(sum(f["capture_seconds"] + f["compile_seconds"] for f in functions), 3),
        "captured_rarely_called": sorted(f["qualname"] for f in top if (f["captures"] or f["errors"]) and f["calls"] <= once),
        "cold_calls": sum(f.get("cold_calls", 0) for f in functions),
        "wall_s": round(run["wall"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--thresholds", default="1,2,3,5,10")
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--packages", default="model")
    parser.add_argument("--script", default=str(ROOT / "tests" / "programs" / "nanogpt" / "train.py"))
    parser.add_argument("--once", type=int, default=1, help="'rarely called': at most this many calls")
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("args", nargs="*", help="arguments for the script (after --)")
    options = parser.parse_args()
    rows = []
    for threshold in (int(t) for t in options.thresholds.split(",")):
        rows.append(summarise(threshold, run_once(Path(options.script).resolve(), options.packages, threshold,
                                                  options.backend, options.args), options.once))
        row = rows[-1]
        print(f"threshold {row['threshold']:>3}: {row['captures']:>3} captures ({row['failed_captures']} failed), capture+compile {row['capture_s']:>7.3f} s, "
              f"cold calls {row['cold_calls']:>4}, wall {row['wall_s']:>6.2f} s, capture tried although called "
              f"<= {options.once}x: {', '.join(row['captured_rarely_called']) or '-'}", flush=True)
    if options.json:
        Path(options.json).write_text(json.dumps({"machine": platform.platform(), "cpus": os.cpu_count(),
                                                  "backend": options.backend, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
