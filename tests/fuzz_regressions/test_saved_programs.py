"""Every saved fuzz regression file is well-formed: it imports, names the observed
difference, and its program compiles and runs deterministically under eager (so the
regression tests fail only because of the compiler, never because of the harness)."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

from autograph.testing import fuzz

HERE = pathlib.Path(__file__).parent
SAVED = sorted(HERE.glob("test_fuzz_*.py"))


def _load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"fuzz_saved_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_directory_holds_only_regression_files_and_the_readme():
    names = {p.name for p in HERE.iterdir() if p.is_file()}
    stray = {n for n in names if not (n.startswith("test_fuzz_") or n in {"README.md", "test_saved_programs.py"})}
    assert not stray, f"unexpected files in tests/fuzz_regressions: {sorted(stray)}"


@pytest.mark.parametrize("path", SAVED, ids=[p.stem for p in SAVED])
def test_saved_program_loads_and_is_deterministic_under_eager(path):
    module = _load(path)
    assert isinstance(module.PROGRAM, fuzz.Program)
    assert module.OBSERVED.strip(), "the observed difference must be recorded"
    compile(module.PROGRAM.source, str(path), "exec")
    assert fuzz.check_program(module.PROGRAM, fuzz.identity_compiler()) == []
    assert callable(module.test_compiled_matches_eager)
