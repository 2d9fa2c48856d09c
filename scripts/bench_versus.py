#!/usr/bin/env python
"""Overhead and cold capture of this checkout against another commit, side by side in one run.

The other commit is checked out into a temporary git worktree; this checkout's
``bench_overhead.py`` and ``bench_capture.py`` are run against both trees in turn
(alternating which goes first, each in a fresh process on one torch thread), and the
medians over ``--rounds`` are printed side by side: a hit's added time (µs over the plain
call) per case, and cold capture (ms) per row.

With ``--instructions`` it also counts the instructions a hit adds, per row of
``bench_instructions.py`` (callgrind: deterministic, one run per tree), the measure to trust when
timings on a shared machine differ by tenths of a microsecond.

    python scripts/bench_versus.py [BASE (default HEAD~1)] [--rounds 3] [--rows one_op,toy,mlp,gpt2]
                                   [--instructions]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ("bench_overhead.py", "bench_capture.py", "bench_instructions.py")


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def base_tree(ref: str) -> tuple[Path, str]:
    """A worktree of ``ref`` with this checkout's bench scripts and a built native extension."""
    sha = _git("rev-parse", "--short", ref)
    tree = Path(tempfile.gettempdir()) / f"autograph-versus-{sha}"
    if not tree.exists():
        _git("worktree", "add", "--detach", str(tree), sha)
    for name in BENCHES:
        shutil.copy(ROOT / "scripts" / name, tree / "scripts" / name)
    same_native = subprocess.run(["git", "diff", "--quiet", sha, "HEAD", "--", "native"], cwd=ROOT).returncode == 0
    built = list((ROOT / "autograph").glob("_native*.so"))
    if same_native and built:
        for so in built:
            shutil.copy(so, tree / "autograph" / so.name)
    elif not list((tree / "autograph").glob("_native*.so")):
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree, check=True,
                       capture_output=True)
    return tree, sha


def run(tree: Path, script: str, args: list[str]) -> list[dict]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env.update(PYTHONPATH=str(tree), OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, str(tree / "scripts" / script), *args, "--json", path], cwd=tree, env=env,
                   check=True, capture_output=True, text=True)
    rows = json.loads(Path(path).read_text())
    os.unlink(path)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", default="HEAD~1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", default="one_op,toy,mlp,gpt2", help="bench_capture rows")
    parser.add_argument("--number", type=int, default=1000, help="calls per overhead repeat")
    parser.add_argument("--instructions", action="store_true",
                        help="also instructions a hit adds (bench_instructions.py, needs valgrind)")
    opts = parser.parse_args(argv)
    base, sha = base_tree(opts.base)
    here = _git("rev-parse", "--short", "HEAD")
    trees = {sha: base, f"{here} (this checkout)": ROOT}
    added: dict[tuple[str, str], list[float]] = {}
    cold: dict[tuple[str, str], list[float]] = {}
    for r in range(opts.rounds):
        for label in (list(trees) if r % 2 == 0 else list(reversed(trees))):
            for row in run(trees[label], "bench_overhead.py", ["--cpu-time", "--repeat", "5", "--number",
                                                                str(opts.number)]):
                added.setdefault((row["row"], label), []).append(row["autograph_us"] - row["plain_us"])
            for row in run(trees[label], "bench_capture.py", ["--repeat", "1", "--rows", opts.rows]):
                if row.get("autograph") is not None:
                    cold.setdefault((row["row"], label), []).append(row["autograph"])
        print(f"round {r + 1}/{opts.rounds} done", file=sys.stderr)
    labels = list(trees)
    print(f"medians of {opts.rounds} rounds, alternating order; this machine, 1 torch thread")
    for title, data, unit in (("hit overhead added to the plain call", added, "µs"),
                              ("cold capture (first call minus plain)", cold, "ms")):
        print(f"\n{title} ({unit})\n{'row':28} {labels[0]:>14} {labels[1]:>24} {'new/base':>9}")
        for row in dict.fromkeys(k[0] for k in data):
            a, b = (statistics.median(data.get((row, lab), [float("nan")])) for lab in labels)
            print(f"{row:28} {a:14.2f} {b:24.2f} {b / a if a else float('nan'):9.2f}")
    if opts.instructions:
        counts = {label: {r["row"]: r for r in run(trees[label], "bench_instructions.py", [])} for label in labels}
        for title, value, scale in (("instructions a hit adds to the plain call", lambda r: r["autograph"] - r["plain"], 1),
                                    ("instructions of the cold first call (millions)", lambda r: r.get("cold"), 1e6)):
            print(f"\n{title} (callgrind)\n{'row':28} {labels[0]:>14} {labels[1]:>24} {'new/base':>9}")
            for row in counts[labels[0]]:
                a, b = (value(counts[lab][row]) if row in counts[lab] else None for lab in labels)
                if a is None or b is None:
                    continue
                print(f"{row:28} {a / scale:14.1f} {b / scale:24.1f} {b / a if a else float('nan'):9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
