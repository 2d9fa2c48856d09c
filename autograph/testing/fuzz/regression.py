"""Regression test files for failures, and checks in a child interpreter (crashes)."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from typing import Sequence

from autograph.testing.fuzz.harness import Difference
from autograph.testing.fuzz.program import Program


def regression_test_source(program: Program, differences: Sequence[Difference], *, found_by: str,
                           backend: str = "eager", xfail_reason: str | None = None,
                           previous: Sequence[Program] = (), threshold: int | None = None) -> str:
    """The text of a pytest file that re-checks ``program`` against ``autograph.compile``;
    ``previous`` programs are checked first in the same process (state-dependent failures)."""
    observed = "\n".join(str(d) for d in differences)
    data = program.to_dict()
    source = data.pop("source")
    marker = ""
    if xfail_reason is not None:
        marker = f"@pytest.mark.xfail(strict=True, reason={xfail_reason!r})\n"
    # a crash of the interpreter itself is re-checked in a child interpreter
    isolated = any(d.kind == "crash" for d in differences)
    # with a threshold: fn wrapped as the import hook wraps it (compilers.autograph_compiler)
    how = "" if threshold is None else ", threshold=THRESHOLD"
    check = f"check_program_isolated(PROGRAM, BACKEND{how})" if isolated \
        else f"check_program(PROGRAM, autograph_compiler(BACKEND{how}))"
    # import only what the test uses (the lint gate runs over tests/)
    names = "Program, autograph_compiler, check_program, " + ("check_program_isolated, " if isolated else "")
    return (
        f'"""Fuzz regression (found by {found_by}).\n\nObserved difference:\n'
        + textwrap.indent(observed.replace("\\", "/").replace('"""', "'''"), "    ") + '\n"""\n'
        "import pytest\n\n"
        f"from autograph.testing.fuzz import ({names}format_failure)\n\n"
        f"SOURCE = {source!r}\n\n"
        f"PROGRAM = Program.from_dict(dict({data!r}, source=SOURCE))\n"
        f"OBSERVED = {observed!r}\n"
        f"BACKEND = {backend!r}\n"
        + (f"THRESHOLD = {threshold!r}  # the import hook's shim with this compile_threshold\n" if how else "") +
        f"# checked first, in the same process: the difference needs the state they leave behind\n"
        f"PREVIOUS = [{', '.join(f'Program.from_dict({p.to_dict()!r})' for p in previous)}]\n\n\n"
        "@pytest.mark.fuzz\n"
        f"{marker}"
        "def test_compiled_matches_eager():\n"
        "    for earlier in PREVIOUS:\n"
        f"        check_program(earlier, autograph_compiler(BACKEND{how}))\n"
        f"    differences = {check}\n"
        "    assert not differences, format_failure(PROGRAM, differences)\n"
    )


_ISOLATED_CHECK = """
import dataclasses, json, sys
from autograph.testing import fuzz
program = fuzz.Program.from_dict(json.load(sys.stdin))
threshold = int(sys.argv[2]) if len(sys.argv) > 2 else None
found = fuzz.check_program(program, fuzz.autograph_compiler(sys.argv[1], threshold=threshold))
print("FUZZ-RESULT " + json.dumps([dataclasses.asdict(d) for d in found]))
"""


def check_program_isolated(program: Program, backend: str = "eager", *, timeout_s: float = 600.0,
                           threshold: int | None = None) -> list[Difference]:
    """``check_program`` against ``autograph.compile`` in a child interpreter, so that a
    crash (segfault, abort) or a hang becomes a ``crash``/``timeout`` Difference."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        extra = [] if threshold is None else [str(threshold)]
        proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _ISOLATED_CHECK, backend, *extra],
                              input=json.dumps(program.to_dict()), capture_output=True, text=True,
                              timeout=timeout_s, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        return [Difference(-1, "timeout", f"the check did not finish within {timeout_s:g} s")]
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("FUZZ-RESULT "):
            return [Difference(**d) for d in json.loads(line[len("FUZZ-RESULT "):])]
    return [Difference(-1, "crash", f"the interpreter died ({describe_exit(proc.returncode)}); "
                                    f"stderr ends with: {proc.stderr[-1500:]}")]


def describe_exit(returncode: int) -> str:
    """'killed by SIGSEGV' or 'exit code 3' (a shell's 128+N counts as signal N)."""
    number = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else None
    if number:
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            pass
    return f"exit code {returncode}"


def regression_file_name(difference: Difference, program: Program) -> str:
    digest = hashlib.sha1((difference.signature() + program.source).encode()).hexdigest()[:10]
    return f"test_fuzz_{difference.kind}_{digest}.py"

