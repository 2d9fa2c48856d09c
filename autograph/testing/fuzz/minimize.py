"""Minimisation: drop statements while the same kind of difference persists."""
from __future__ import annotations

import time
from typing import Sequence

from autograph.testing.fuzz.diff import DEFAULT_TOLERANCE, Tolerance
from autograph.testing.fuzz.harness import Difference, check_program
from autograph.testing.fuzz.program import Compiler, Program


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each removable statement: a line plus the deeper-indented lines after it."""
    spans = []
    for start, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith(("import ", "def fn(", "return ", "global ")):
            continue
        indent = len(line) - len(line.lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        spans.append((start, end))
    return spans


_REMOVAL_ERRORS = ("NameError", "UnboundLocalError")


def _broken_by_removal(found: Difference, original: Difference) -> bool:
    """A difference that only a removed definition explains (either side raising NameError)."""
    if found.eager_exception in _REMOVAL_ERRORS:
        return True
    return any(name in found.detail and name not in original.detail for name in _REMOVAL_ERRORS)


def minimize(program: Program, compiler: Compiler, difference: Difference, *,
             max_checks: int = 150, max_seconds: float = 120.0, tol: Tolerance = DEFAULT_TOLERANCE,
             previous: Sequence[Program] = ()) -> Program:
    """Drop statements (largest first) while the same kind of difference, with the
    same eager behaviour on that call, still shows; returns the smallest program found."""
    deadline = time.monotonic() + max_seconds
    checks = 0

    def still_fails(candidate: Program) -> bool:
        nonlocal checks
        checks += 1
        try:
            compile(candidate.source, "<candidate>", "exec")
        except SyntaxError:
            return False
        for earlier in previous:  # a failure that needs state left by earlier programs
            check_program(earlier, compiler, tol=tol, timeout_s=20.0)
        found = check_program(candidate, compiler, tol=tol, timeout_s=20.0)
        return any(d.kind == difference.kind and d.eager_exception == difference.eager_exception
                   and not _broken_by_removal(d, difference) for d in found)

    current = program
    progress = True
    while progress and checks < max_checks and time.monotonic() < deadline:
        progress = False
        lines = current.source.splitlines()
        for start, end in sorted(_blocks(lines), key=lambda span: span[0] - span[1]):
            if checks >= max_checks or time.monotonic() >= deadline:
                break
            candidate = current.with_source("\n".join(lines[:start] + lines[end:]) + "\n")
            if still_fails(candidate):
                current, progress = candidate, True
                break
    return current

