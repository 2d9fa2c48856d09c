#!/usr/bin/env python
"""Differential fuzzing of autograph.compile for as long as asked (issue #9).

Generates program after program from ``--seed`` (program i uses generator seed
``seed * 1_000_000 + i``, so any program can be regenerated), checks each compiled
against eager, minimises every failure and saves one regression test per distinct
failure under tests/fuzz_regressions/ (xfail(strict=True) until fixed).

The programs run in a worker process; if it dies (segfault, abort), the program it
was checking is saved as a ``crash`` regression test (re-checked in a child
interpreter) and a new worker continues with the next program.

    .venv/bin/python scripts/fuzz.py --minutes 10 --seed 1
    .venv/bin/python scripts/fuzz.py --minutes 1 --compiler dynamo --no-save   # validate the harness

Exit status: 0 when no failure was found, 1 otherwise, 2 when the compiler is missing.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import faulthandler
import itertools
import json
import logging
import os
import pathlib
import re
import subprocess
import sys
import tempfile
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
    parser.add_argument("--threshold", type=int, default=None,
                        help="wrap fn as the import hook does with this compile_threshold (its first N-1 calls "
                             "run eagerly) instead of autograph.compile")
    parser.add_argument("--compiler", default="autograph",
                        help="what to check: autograph (autograph.compile), dynamo (torch.compile, to validate "
                             "the harness), identity, or module:function returning a compiler")
    parser.add_argument("--save-dir", type=pathlib.Path, default=ROOT / "tests" / "fuzz_regressions")
    parser.add_argument("--no-save", action="store_true", help="report failures without writing regression tests")
    parser.add_argument("--no-xfail", action="store_true", help="save regression tests without the xfail marker")
    parser.add_argument("--issue", type=int, default=None,
                        help="the issue tracking the bugs found: xfail reasons read 'issue N: <kind>: <detail>'")
    parser.add_argument("--minimize-seconds", type=float, default=90.0, help="time budget to minimise one failure")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one call may take before it is a hang")
    parser.add_argument("--without", nargs="*", default=[], metavar="FEATURE",
                        help=f"feature families to leave out: {', '.join(sorted(fuzz.FEATURES))}")
    parser.add_argument("--verbose", action="store_true", help="show autograph's and torch's log lines")
    # internal: the supervisor starts workers with these
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--state", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--progress", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--crash-log", type=pathlib.Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# -- state shared by the supervisor and its workers (a JSON file) -------------------

def _empty_state() -> dict:
    return {"checked": 0, "repeats": {}, "fallbacks": {}, "new": [], "first": None, "last": None}


def _load_state(path: pathlib.Path | None) -> dict:
    if path is not None and path.exists() and path.stat().st_size:
        return json.loads(path.read_text())
    return _empty_state()


def _write_state(path: pathlib.Path | None, state: dict) -> None:
    if path is not None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(path)


def _known_signatures(save_dir: pathlib.Path) -> set[str]:
    """Signatures saved by earlier runs (the SIGNATURE line of each regression file)."""
    known = set()
    for path in save_dir.glob("test_fuzz_*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("SIGNATURE = "):
                known.add(eval(line.split("=", 1)[1]))  # noqa: S307 - our own repr() output
    return known


def _save(args: argparse.Namespace, program: fuzz.Program, differences: list[fuzz.Difference], seed: int,
          signature: str, minimised: bool, previous: list[fuzz.Program] | None = None) -> pathlib.Path | None:
    if args.no_save:
        return None
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    found_by = (f"scripts/fuzz.py --seed {args.seed}, program seed {seed}, {today}, "
                + ("minimised" if minimised else "not minimised")
                + ("; reproduces only after PREVIOUS ran in the same process" if previous else ""))
    first = differences[0]
    prefix = f"issue {args.issue}" if args.issue is not None else "fuzz-found bug, not fixed yet"
    reason = None if args.no_xfail else f"{prefix}: {first.kind}: {first.detail[:200]}"
    text = fuzz.regression_test_source(program, differences, found_by=found_by, backend=args.backend,
                                       xfail_reason=reason, previous=previous or (), threshold=args.threshold)
    text += f"\nSIGNATURE = {signature!r}\n"
    path = args.save_dir / fuzz.regression_file_name(first, program)
    path.write_text(text, encoding="utf-8")
    return path


def _shown(path: pathlib.Path | None) -> str:
    if path is None:
        return "not saved (--no-save)"
    return f"saved as {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"


# -- the worker: generate, check, minimise, save ------------------------------------

class _CollectingCompiler:
    """Wraps a compiler; before each reset it keeps the capture failures autograph
    recorded (it ran eager instead): coverage gaps, not bugs."""

    def __init__(self, inner):
        self.inner, self.fallbacks = inner, []

    def __call__(self, fn):
        return self.inner(fn)

    def reset(self) -> None:
        from autograph.runtime.stats import all_stats

        self.fallbacks += [error for stats in all_stats() for error in stats.errors]
        self.inner.reset()

    def __repr__(self) -> str:
        return repr(self.inner)


def _compiler(args: argparse.Namespace):
    if args.compiler == "dynamo":
        return fuzz.dynamo_compiler(args.backend)
    if args.compiler == "identity":
        return fuzz.identity_compiler()
    if ":" in args.compiler:
        import importlib
        module, function = args.compiler.split(":", 1)
        return getattr(importlib.import_module(module), function)()
    if args.compiler != "autograph":
        raise ImportError(f"unknown compiler {args.compiler!r}: use autograph, dynamo, identity or module:function")
    return fuzz.autograph_compiler(args.backend, threshold=args.threshold)


def _short(error: str) -> str:
    text = re.sub(r"\S+\.py:\d+:\s*", "", error)  # file:line of the generated program
    return re.sub(r"\d+", "N", text)[:160]


def _work(args: argparse.Namespace) -> int:
    if args.crash_log is not None:
        faulthandler.enable(file=open(args.crash_log, "w"))  # noqa: SIM115 - lives as long as the process
    config = fuzz.DEFAULT_CONFIG.without(*args.without)
    try:
        compiler = _CollectingCompiler(_compiler(args))
    except ImportError as error:
        print(f"fuzz: cannot check {args.compiler}: {error}", file=sys.stderr)
        return 2
    state = _load_state(args.state)
    known = _known_signatures(args.save_dir) | set(state["repeats"])
    deadline = time.monotonic() + args.minutes * 60
    last_report = time.monotonic()
    previous_program = None
    for index in itertools.count(args.start):
        if time.monotonic() >= deadline:
            break
        if args.progress is not None:
            args.progress.write_text(str(index))
        seed = args.seed * 1_000_000 + index
        program = fuzz.generate_program(seed, config)
        differences = fuzz.check_program(program, compiler, timeout_s=args.timeout)
        for error in compiler.fallbacks:
            state["fallbacks"][_short(error)] = state["fallbacks"].get(_short(error), 0) + 1
        compiler.fallbacks.clear()
        state["checked"] += 1
        state["first"] = index if state["first"] is None else state["first"]
        state["last"] = index
        if differences:
            signature = differences[0].signature()
            state["repeats"][signature] = state["repeats"].get(signature, 0) + 1
            if signature not in known:
                known.add(signature)
                small = fuzz.minimize(program, compiler, differences[0], max_seconds=args.minimize_seconds)
                small_differences = fuzz.check_program(small, compiler, timeout_s=args.timeout)
                minimised = bool(small_differences)
                if not minimised:  # the smaller program does not reproduce on its own: keep the original
                    small, small_differences = program, differences
                needs_previous = None
                if args.compiler == "autograph" and not fuzz.check_program_isolated(small, args.backend,
                                                                                      threshold=args.threshold):
                    # reproduces only after earlier programs ran in this process: keep the one before
                    small, small_differences = program, differences
                    needs_previous = [previous_program] if previous_program is not None else None
                path = _save(args, small, small_differences, seed, signature, minimised=small is not program,
                             previous=needs_previous)
                state["new"].append(signature)
                print(f"\nFAILURE (program seed {seed}): {small_differences[0]}", flush=True)
                print(fuzz.format_failure(small, small_differences), flush=True)
                print(_shown(path), flush=True)
                compiler.fallbacks.clear()  # minimisation's broken candidates are no coverage gaps of the run
        previous_program = program
        _write_state(args.state, state)
        if time.monotonic() - last_report > 30:
            last_report = time.monotonic()
            print(f"  {state['checked']} programs, {sum(state['repeats'].values())} failing, "
                  f"{len(state['new'])} new distinct", flush=True)
    return 0


# -- the supervisor: restarts workers after a crash ---------------------------------

def _crash_difference(returncode: int, crash_log: pathlib.Path) -> tuple[fuzz.Difference, str]:
    text = crash_log.read_text(errors="replace") if crash_log.exists() else ""
    frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', text)
    where = f"{os.path.basename(frames[0][0])}:{frames[0][2]}" if frames else "unknown place"
    stack = "; ".join(f"{os.path.basename(f)}:{line} {name}" for f, line, name in frames[:8])
    how = fuzz.describe_exit(returncode)
    difference = fuzz.Difference(-1, "crash", f"the interpreter was {how} in {where} (stack: {stack})")
    return difference, f"crash: {how} in {where}"


def _worker_command(args: argparse.Namespace, start: int, minutes: float, tmp: pathlib.Path) -> list[str]:
    command = [sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", "--seed", str(args.seed),
               "--start", str(start), "--minutes", f"{minutes:.4f}", "--backend", args.backend,
               "--compiler", args.compiler, "--save-dir", str(args.save_dir),
               "--minimize-seconds", str(args.minimize_seconds), "--timeout", str(args.timeout),
               "--state", str(tmp / "state.json"), "--progress", str(tmp / "progress"),
               "--crash-log", str(tmp / "crash.log")]
    if args.threshold is not None:
        command += ["--threshold", str(args.threshold)]
    command += ["--no-save"] * args.no_save + ["--no-xfail"] * args.no_xfail + ["--verbose"] * args.verbose
    if args.issue is not None:
        command += ["--issue", str(args.issue)]
    if args.without:
        command += ["--without", *args.without]
    return command


def _supervise(args: argparse.Namespace) -> int:
    args.save_dir.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="autograph_fuzz_run_"))
    state_path = tmp / "state.json"
    deadline = time.monotonic() + args.minutes * 60
    started = time.monotonic()
    start = args.start
    print(f"fuzz: checking {args.compiler} (backend {args.backend!r}) for {args.minutes:g} min, seed {args.seed}",
          flush=True)
    while True:
        remaining = (deadline - time.monotonic()) / 60
        if remaining <= 0:
            break
        (tmp / "progress").write_text("")
        returncode = subprocess.call(_worker_command(args, start, remaining, tmp))
        if returncode == 2:
            return 2
        if returncode == 0:
            break
        progress = (tmp / "progress").read_text().strip()
        if not progress:
            print(f"fuzz: the worker died before checking a program ({fuzz.describe_exit(returncode)})")
            return 3
        index = int(progress)
        seed = args.seed * 1_000_000 + index
        difference, signature = _crash_difference(returncode, tmp / "crash.log")
        state = _load_state(state_path)
        state["checked"] += 1
        state["last"] = index
        known = _known_signatures(args.save_dir) | set(state["repeats"])
        state["repeats"][signature] = state["repeats"].get(signature, 0) + 1
        if signature not in known:
            program = fuzz.generate_program(seed, fuzz.DEFAULT_CONFIG.without(*args.without))
            path = _save(args, program, [difference], seed, signature, minimised=False)
            state["new"].append(signature)
            print(f"\nFAILURE (program seed {seed}): {difference}", flush=True)
            print(fuzz.format_failure(program, [difference]), flush=True)
            print(_shown(path), flush=True)
        else:
            print(f"fuzz: program seed {seed} crashed the worker again ({signature})", flush=True)
        _write_state(state_path, state)
        start = index + 1
    state = _load_state(state_path)
    elapsed = time.monotonic() - started
    repeats = collections.Counter(state["repeats"])
    fallbacks = collections.Counter(state["fallbacks"])
    print(f"\nfuzz: {state['checked']} programs in {elapsed / 60:.1f} min (seed {args.seed}, indices "
          f"{state['first']}..{state['last']}); {sum(repeats.values())} failing programs, "
          f"{len(repeats)} distinct differences, {len(state['new'])} new")
    for signature, count in repeats.most_common():
        print(f"  {count:4d} x {signature}{'' if signature in state['new'] else '  (already known)'}")
    print(f"autograph fell back to eager {sum(fallbacks.values())} times (not failures; coverage gaps)"
          + (":" if fallbacks else "."))
    for reason, count in fallbacks.most_common(15):
        print(f"  {count:4d} x {reason}")
    print(f"fuzz summary: seed {args.seed}, {args.minutes:g} min ({elapsed / 60:.1f} min run) on {_commit()}, "
          f"backend {args.backend}, programs run {state['checked']}, failures {sum(repeats.values())} "
          f"({len(repeats)} distinct, {len(state['new'])} new), eager fallbacks {sum(fallbacks.values())}")
    return 1 if repeats else 0


def _commit() -> str:
    """The checked-out commit (``+dirty`` with uncommitted changes), for the summary line."""
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown commit"
    return f"{commit}{'+dirty' if dirty else ''}" if commit else "unknown commit"


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if not args.verbose:
        for name in ("autograph", "torch", "torch._subclasses.fake_tensor", "torch._dynamo"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.worker:
        return _work(args)
    return _supervise(args)


if __name__ == "__main__":
    sys.exit(main())
