#!/usr/bin/env python
"""Differential fuzzing of autograph.compile for as long as asked (issue #9).

Generates program after program from ``--seed`` (program i uses generator seed
``seed * 1_000_000 + i``, so any program can be regenerated), checks each compiled
against eager, minimises every failure and saves one regression test per distinct
failure under tests/fuzz_regressions/ (xfail(strict=True) until fixed).

    .venv/bin/python scripts/fuzz.py --minutes 10 --seed 1
    .venv/bin/python scripts/fuzz.py --minutes 1 --compiler dynamo --no-save   # validate the harness

Exit status: 0 when no failure was found, 1 otherwise.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import itertools
import logging
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograph.testing import fuzz  # noqa: E402


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to generate programs (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="run seed; program i uses seed*1_000_000+i")
    parser.add_argument("--start", type=int, default=0, help="first program index (to resume a run)")
    parser.add_argument("--backend", default="eager", help="autograph backend to compile with (default eager)")
    parser.add_argument("--compiler", choices=("autograph", "dynamo", "identity"), default="autograph",
                        help="what to check: autograph.compile, torch.compile (harness validation) or nothing")
    parser.add_argument("--save-dir", type=pathlib.Path, default=ROOT / "tests" / "fuzz_regressions")
    parser.add_argument("--no-save", action="store_true", help="report failures without writing regression tests")
    parser.add_argument("--no-xfail", action="store_true", help="save regression tests without the xfail marker")
    parser.add_argument("--minimize-seconds", type=float, default=90.0, help="time budget to minimise one failure")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one call may take before it is a hang")
    parser.add_argument("--without", nargs="*", default=[], metavar="FEATURE",
                        help=f"feature families to leave out: {', '.join(sorted(fuzz.FEATURES))}")
    parser.add_argument("--verbose", action="store_true", help="show autograph's own log lines (fallbacks, breaks)")
    return parser.parse_args(argv)


def _compiler(args: argparse.Namespace):
    if args.compiler == "dynamo":
        return fuzz.dynamo_compiler(args.backend)
    if args.compiler == "identity":
        return fuzz.identity_compiler()
    return fuzz.autograph_compiler(args.backend)


def _known_signatures(save_dir: pathlib.Path) -> set[str]:
    """Signatures already saved by earlier runs (the SIGNATURE line of each file)."""
    known = set()
    for path in save_dir.glob("test_fuzz_*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("SIGNATURE = "):
                known.add(eval(line.split("=", 1)[1]))  # noqa: S307 - our own repr() output
    return known


class _CollectingCompiler:
    """Wraps a compiler; before each reset it keeps the capture failures autograph
    recorded (it ran eager instead): coverage gaps, not bugs."""

    def __init__(self, inner):
        self.inner, self.fallbacks = inner, []

    def __call__(self, fn):
        return self.inner(fn)

    def reset(self) -> None:
        try:
            from autograph.runtime.stats import all_stats
            self.fallbacks += [error for stats in all_stats() for error in stats.errors]
        except ImportError:
            pass
        self.inner.reset()

    def __repr__(self) -> str:
        return repr(self.inner)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if not args.verbose:
        logging.getLogger("autograph").setLevel(logging.CRITICAL)
    config = fuzz.DEFAULT_CONFIG.without(*args.without)
    try:
        compiler = _CollectingCompiler(_compiler(args))
    except ImportError as error:
        print(f"fuzz: cannot check {args.compiler}: {error}", file=sys.stderr)
        return 2
    args.save_dir.mkdir(parents=True, exist_ok=True)
    known = _known_signatures(args.save_dir)
    deadline = time.monotonic() + args.minutes * 60
    failures: dict[str, tuple[fuzz.Program, list[fuzz.Difference], pathlib.Path | None]] = {}
    repeats: collections.Counter[str] = collections.Counter()
    fallbacks: collections.Counter[str] = collections.Counter()
    checked = 0
    started = time.monotonic()
    last_report = started
    print(f"fuzz: checking {compiler!r} for {args.minutes:g} min, seed {args.seed}", flush=True)
    for index in itertools.count(args.start):
        if time.monotonic() >= deadline:
            break
        seed = args.seed * 1_000_000 + index
        program = fuzz.generate_program(seed, config)
        differences = fuzz.check_program(program, compiler, timeout_s=args.timeout)
        for error in compiler.fallbacks:
            fallbacks[_short(error)] += 1
        compiler.fallbacks.clear()
        checked += 1
        if differences:
            signature = differences[0].signature()
            repeats[signature] += 1
            if signature not in failures and signature not in known:
                small = fuzz.minimize(program, compiler, differences[0], max_seconds=args.minimize_seconds)
                small_differences = fuzz.check_program(small, compiler, timeout_s=args.timeout) or differences
                path = None if args.no_save else _save(args, small, small_differences, seed, signature)
                failures[signature] = (small, small_differences, path)
                print(f"\nFAILURE {len(failures)} (program seed {seed}): {small_differences[0]}", flush=True)
                print(fuzz.format_failure(small, small_differences), flush=True)
                if path is not None:
                    print(f"saved as {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", flush=True)
        if time.monotonic() - last_report > 30:
            last_report = time.monotonic()
            print(f"  {checked} programs, {sum(repeats.values())} failing, {len(failures)} new distinct", flush=True)
    elapsed = time.monotonic() - started
    print(f"\nfuzz: {checked} programs in {elapsed / 60:.1f} min (seed {args.seed}, indices {args.start}.."
          f"{args.start + checked - 1}); {sum(repeats.values())} failing programs, {len(repeats)} distinct "
          f"differences, {len(failures)} new")
    for signature, count in repeats.most_common():
        print(f"  {count:4d} x {signature}{'' if signature in failures else '  (already saved)'}")
    if fallbacks:
        print(f"autograph fell back to eager {sum(fallbacks.values())} times (not failures; coverage gaps):")
        for reason, count in fallbacks.most_common(15):
            print(f"  {count:4d} x {reason}")
    return 1 if repeats else 0


def _short(error: str) -> str:
    text = error.split(": ", 1)[-1] if ".py:" in error else error
    return text[:140]


def _save(args: argparse.Namespace, program: fuzz.Program, differences: list[fuzz.Difference], seed: int,
          signature: str) -> pathlib.Path:
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    found_by = f"scripts/fuzz.py --seed {args.seed}, program seed {seed}, {today}, minimised"
    reason = None if args.no_xfail else f"fuzz-found bug, not fixed yet: {differences[0].kind}: {differences[0].detail[:200]}"
    text = fuzz.regression_test_source(program, differences, found_by=found_by, backend=args.backend,
                                       xfail_reason=reason)
    text += f"\nSIGNATURE = {signature!r}\n"
    path = args.save_dir / fuzz.regression_file_name(differences[0], program)
    path.write_text(text, encoding="utf-8")
    return path


if __name__ == "__main__":
    sys.exit(main())
