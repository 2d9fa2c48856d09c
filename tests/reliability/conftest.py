"""Fixtures for the reliability tests: eager-backend settings, clean caches, a script runner."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import autograph
from autograph.settings import Settings, set_current_settings

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def eager_settings():
    """Process settings with the eager backend and a clean cache; restored afterwards."""
    def use(**changes):
        set_current_settings(Settings(backend="eager", **changes))
    use()
    autograph.reset()
    yield use
    autograph.reset()
    set_current_settings(None)


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: source}`` under ``root`` (dedented)."""
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    return root


def run_autograph(args: list[str], cwd: Path, env: dict[str, str] | None = None,
                  timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m autograph <args>`` in ``cwd`` with the repo importable and no inherited selection."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    full_env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(cwd)])
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "autograph", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
