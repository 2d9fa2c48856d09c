"""scripts/fuzz.py end to end: it saves minimised regression tests, does not save the
same difference twice, and survives a compiler that kills the interpreter."""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from autograph.testing import fuzz

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fuzz.py"

BROKEN = '''
import os, signal

class _Compiler:
    def __init__(self, wrap):
        self.wrap = wrap
    def __call__(self, fn):
        return self.wrap(fn)
    def reset(self):
        pass

def drops_appends():
    def wrap(fn):
        return lambda *args: fn(*[list(a) if isinstance(a, list) else a for a in args])
    return _Compiler(wrap)

def segfaults_on_list_inputs():
    def wrap(fn):
        def run(*args):
            if any(isinstance(a, list) for a in args):
                os.kill(os.getpid(), signal.SIGSEGV)
            return fn(*args)
        return run
    return _Compiler(wrap)
'''


def _run(tmp_path: pathlib.Path, compiler: str, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "broken_compilers.py").write_text(BROKEN)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    # the programs these few-second runs were sized on: the state families (training loops, ...)
    # draw nothing when left out, so the first programs are the same as before they existed
    without = ["--without", *sorted(fuzz.STATE_FEATURES)]
    return subprocess.run([sys.executable, str(SCRIPT), "--compiler", f"broken_compilers:{compiler}",
                           "--save-dir", str(tmp_path / "saved"), "--minimize-seconds", "5", *without, *extra],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)


def test_script_saves_a_minimised_regression_once(tmp_path):
    first = _run(tmp_path, "drops_appends", "--minutes", "0.05", "--issue", "13")
    assert first.returncode == 1, first.stdout + first.stderr
    saved = sorted((tmp_path / "saved").glob("test_fuzz_input_mutation_*.py"))
    assert len(saved) == 1, first.stdout
    text = saved[0].read_text()
    assert "xfail(strict=True, reason=" in text and "issue 13: input_mutation: " in text and "SIGNATURE = " in text
    summary = re.search(r"^fuzz summary: seed 0, 0\.05 min \(\d+\.\d min run\) on (?:\w+(?:\+dirty)?|unknown commit), "
                        r"backend eager, programs run (\d+), failures (\d+) \((\d+) distinct, (\d+) new\), "
                        r"eager fallbacks (\d+)$", first.stdout, re.MULTILINE)
    assert summary and int(summary.group(1)) >= int(summary.group(2)) >= 1, first.stdout
    # the list mutation is kept: on ``items`` itself or on a name bound to it (``l20 = items``)
    assert re.search(r"items\.(append|extend|insert)\(", text) or \
        re.search(r"\b(\w+) = items\b.*?\b\1\.(append|extend|insert)\(", text, re.S)
    assert "FAILURE (program seed" in first.stdout and "already known" not in first.stdout
    second = _run(tmp_path, "drops_appends", "--minutes", "0.05")
    assert second.returncode == 1
    signatures = [line for path in (tmp_path / "saved").glob("test_fuzz_*.py")
                  for line in path.read_text().splitlines() if line.startswith("SIGNATURE = ")]
    assert len(signatures) == len(set(signatures)), "the same difference was saved twice"
    assert "already known" in second.stdout


def test_script_survives_a_crashing_compiler_and_saves_the_program(tmp_path):
    result = _run(tmp_path, "segfaults_on_list_inputs", "--minutes", "0.1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "killed by SIGSEGV" in result.stdout
    saved = list((tmp_path / "saved").glob("test_fuzz_crash_*.py"))
    assert len(saved) == 1
    assert "check_program_isolated(PROGRAM, BACKEND)" in saved[0].read_text()
    # the run went on after the crash: more programs were checked than the crashing index
    summary = [line for line in result.stdout.splitlines() if line.startswith("fuzz: ") and " programs in " in line]
    checked = int(summary[-1].split()[1])
    crashes = result.stdout.count("crashed the worker again") + 1
    assert checked > crashes, result.stdout


def test_unknown_compiler_is_refused_with_exit_code_2(tmp_path):
    result = subprocess.run([sys.executable, str(SCRIPT), "--compiler", "nope", "--minutes", "0.01",
                             "--no-save"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2 and "unknown compiler 'nope'" in result.stderr


def test_isolated_check_reports_a_crash_as_a_difference():
    assert fuzz.describe_exit(-11) == "killed by SIGSEGV"
    assert fuzz.describe_exit(139) == "killed by SIGSEGV"
    assert fuzz.describe_exit(3) == "exit code 3"
