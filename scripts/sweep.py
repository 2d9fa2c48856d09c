#!/usr/bin/env python
"""Run the sweeps (issue 25): generated programs of whole construct classes, each checked eagerly
against ``autograph.compile(fn, backend="eager")`` -- results, exceptions, arguments, ``world()``
and process state after every call (autograph/testing/sweeps/runner.py).

    .venv/bin/python scripts/sweep.py --sweep blocks --minutes 2 --seed 0
    .venv/bin/python scripts/sweep.py --sweep all --minutes 30 --seed 1 --second-opinion

``--second-opinion`` also runs ``torch.compile(backend="eager")`` and lists the cases where it is
right and autograph is wrong. Exit status: 0 when every case matched, 1 otherwise.
"""
from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograph.testing.sweeps import runner  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sweep", default="all", choices=[*runner.SWEEPS, "all"])
    parser.add_argument("--minutes", type=float, default=1.0, help="time per sweep (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--second-opinion", action="store_true",
                        help="also run torch.compile(backend='eager'); print where it is right and autograph wrong")
    args = parser.parse_args(argv)
    names = runner.SWEEPS if args.sweep == "all" else (args.sweep,)
    failed = 0
    for name in names:
        if runner.load_sweep(name) is None:
            print(f"[{name}] not available (no module autograph.testing.sweeps.{name})")
            continue
        counts: collections.Counter = collections.Counter()
        dynamo_better: list[str] = []
        t0 = time.monotonic()
        for outcome in runner.run_sweep(name, args.seed, seconds=args.minutes * 60,
                                        second_opinion=args.second_opinion):
            counts["cases"] += 1
            if outcome.known is not None:
                counts["known"] += 1
            elif outcome.error is not None:
                counts["case errors"] += 1
                print(f"[{name}] ERROR {outcome.case.name}\n{outcome.error}")
            elif outcome.difference is not None:
                counts["wrong"] += 1
                print(f"[{name}] WRONG {outcome.case.name}: {outcome.difference}")
                if args.second_opinion and outcome.dynamo_difference is None:
                    dynamo_better.append(outcome.case.name)
            if args.second_opinion and outcome.dynamo_difference is not None:
                counts["dynamo wrong"] += 1
        failed += counts["wrong"] + counts["case errors"]
        print(f"[{name}] {counts['cases']} cases in {time.monotonic() - t0:.0f}s: {counts['wrong']} wrong, "
              f"{counts['case errors']} case errors, {counts['known']} known differences not checked"
              + (f", torch.compile wrong on {counts['dynamo wrong']}" if args.second_opinion else ""))
        if dynamo_better:
            print(f"[{name}] torch.compile right, autograph wrong ({len(dynamo_better)}):")
            for case_name in dynamo_better:
                print(f"    {case_name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
