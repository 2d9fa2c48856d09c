"""What autograph captured of real models: one table (and JSON).

    python scripts/coverage_report.py                       # gpt2, bert, llama, cnn; eval and train
    python scripts/coverage_report.py --model gpt2 --mode eval
    python scripts/coverage_report.py --model mypkg.models:make   # factory() -> (model, example kwargs)
    python scripts/coverage_report.py --json coverage.json

Per model and mode: graphs, graph breaks (reason and source line, listed under the
table), the share of torch calls that ran inside compiled graphs, correctness
against an eager copy (fp32, atol/rtol 1e-4; train: forward and every gradient),
cold first-call time (wall clock), whether a second call compiled anything, and
the steady-state time per call (median process CPU time, interleaved with eager
in this process; ``--wall`` for wall-clock) as a ratio to eager. See autograph/testing/coverage.py for how each number is measured.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from autograph.testing import models  # noqa: E402
from autograph.testing.coverage import Coverage, measure  # noqa: E402

COLUMNS = ("model", "mode", "graphs", "breaks", "torch calls in graphs", "correct", "cold s",
           "2nd call compiles", "eager ms", "compiled ms", "ratio")  # ms: median process CPU time per call


def _factory(spec: str):
    """A model name from ``autograph.testing.models``, ``hf:<model_type>`` or ``pkg.module:factory``."""
    if spec.startswith("hf:"):
        return spec, lambda: models.build(spec)
    if ":" not in spec:
        if spec not in models.NAMES:
            raise SystemExit(f"unknown model {spec!r}: use one of {', '.join(models.NAMES)} or pkg.module:factory")
        return spec, lambda: models.build(spec)
    module_name, attr = spec.split(":", 1)
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise SystemExit(f"--model {spec}: cannot import {attr!r} from {module_name!r}: {exc}")
    return spec, fn


def _row(c: Coverage) -> list[str]:
    if c.error:
        return [c.model, c.mode, "-", "-", "-", f"error: {c.error}", "-", "-", "-", "-", "-"]
    covered = c.torch_calls_eager - c.torch_calls_outside
    return [c.model, c.mode, str(c.graphs), str(len(c.breaks)),
            f"{100 * c.coverage:.1f}% ({covered}/{c.torch_calls_eager})",
            "yes" if c.correct else f"NO: {c.detail}", f"{c.cold_seconds:.2f}", str(c.second_call_compiles),
            f"{c.eager_ms:.2f}", f"{c.compiled_ms:.2f}", f"{c.ratio:.2f}"]


def render(results: list[Coverage]) -> str:
    rows = [list(COLUMNS)] + [_row(c) for c in results]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    fmt = lambda r: "| " + " | ".join(x.ljust(w) for x, w in zip(r, widths)) + " |"  # noqa: E731
    lines = [fmt(rows[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [fmt(r) for r in rows[1:]]
    breaks = [(c, b) for c in results for b in c.breaks]
    if breaks:
        lines.append("")
        lines.append("Graph breaks:")
        for c, b in breaks:
            lines.append(f"- {c.model} ({c.mode}): {b.reason} — {b.filename}:{b.lineno}: `{b.line}`")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="model name, hf:<transformers model type> or pkg.module:factory (repeatable)")
    parser.add_argument("--mode", choices=("eval", "train", "both"), default="both")
    parser.add_argument("--iters", type=int, default=20, help="steady-state timing iterations (default 20)")
    parser.add_argument("--wall", action="store_true", help="time with the wall clock instead of process CPU time")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch intra-op threads (default 1: steadier numbers on a shared machine)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)

    import torch
    torch.set_num_threads(args.threads)
    specs = args.model or list(models.NAMES)
    modes = ("eval", "train") if args.mode == "both" else (args.mode,)
    results = []
    for spec in specs:
        name, factory = _factory(spec)
        for mode in modes:
            clock = time.perf_counter if args.wall else time.process_time
            results.append(measure(name, factory, mode, steady_iters=args.iters, clock=clock))
            print(f"measured {name} ({mode})", file=sys.stderr)
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps([c.as_dict() for c in results], indent=2) + "\n")
    bad = [c for c in results if c.error or not c.correct]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
