"""Steady training step of `torch.compile(model)` with and without autograph's import hook.

Runs the GPT-shaped program of ``tests/runtime/gptlike`` (``train.py``) in child processes,
alternating "torch.compile alone" and "under AUTOGRAPH_PACKAGES=tests.runtime.gptlike"
for ``--rounds`` rounds; the steady step is the median step time after ``--warmup`` steps,
pooled over the rounds. Prints a Markdown table row per backend.

    python scripts/bench_beside_torch_compile.py --backend aot_eager --backend inductor
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(backend: str, hooked: bool, steps: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRAPH", "TORCH_LOGS"))}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env.update({"TC": backend, "STEPS": str(steps), "OMP_NUM_THREADS": "1"})
    if hooked:
        env["AUTOGRAPH_PACKAGES"] = "tests.runtime.gptlike"
    out = subprocess.run([sys.executable, "-m", "tests.runtime.gptlike.train"], cwd=REPO, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", default=None, help="torch.compile backend (repeatable)")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| torch.compile backend | alone: steady step ms | under the hook: steady step ms | ratio | "
          "step 0 s alone / hooked | same losses |")
    print("|---|---|---|---|---|---|")
    for backend in args.backend or ["aot_eager"]:
        times: dict[bool, list[float]] = {False: [], True: []}
        first: dict[bool, list[float]] = {False: [], True: []}
        losses: dict[bool, list] = {}
        for _ in range(args.rounds):
            for hooked in (False, True):
                result = run(backend, hooked, args.steps)
                times[hooked] += result["times"][args.warmup:]
                first[hooked].append(result["times"][0])
                losses.setdefault(hooked, result["losses"])
        alone, hooked = statistics.median(times[False]) * 1e3, statistics.median(times[True]) * 1e3
        print(f"| {backend} | {alone:.2f} | {hooked:.2f} | {hooked / alone:.3f} | "
              f"{statistics.median(first[False]):.1f} / {statistics.median(first[True]):.1f} | "
              f"{'yes' if losses[False] == losses[True] else 'NO'} |")


if __name__ == "__main__":
    main()
