"""What a newcomer expects of a command line: --version, --help everywhere, a clear error for a
directory, one flag per common setting, ``autograph report``, Ctrl-C keeping the report (status
130 under the launcher and the environment alike), tracebacks without autograph's frames, and
the demo's summary in at most 40 lines."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH") and k != "XDG_CACHE_HOME"}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(tmp_path)]), HOME=str(tmp_path))
    env.update(extra)
    return env


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env_for(tmp_path, **env),
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path):
    pkg = tmp_path / "ctlpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        import torch

        def step(x):
            y = x + 1
            if y.sum() > 100:
                raise KeyboardInterrupt
            return y * 2

        def fails(x):
            y = x * 3
            raise ValueError("bad value")
    """))
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        import sys
        import torch
        import ctlpkg

        x = torch.ones(3)
        for _ in range(4):
            ctlpkg.step(x)
        print("warm", flush=True)
        if sys.argv[1] == "interrupt":
            ctlpkg.step(x * 100)
        elif sys.argv[1] == "fail":
            ctlpkg.fails(x)
        import os
        print({k: v for k, v in sorted(os.environ.items()) if k in (
            "AUTOGRAPH_PACKAGES", "AUTOGRAPH_DENY", "AUTOGRAPH_COMPILE_THRESHOLD", "AUTOGRAPH_VERIFY",
            "AUTOGRAPH_LOG", "AUTOGRAPH_REPORT_STYLE")})
    """))
    return tmp_path


def test_version(tmp_path):
    from autograph import __version__

    result = run(tmp_path, "-m", "autograph", "--version")
    assert (result.returncode, result.stdout) == (0, f"autograph {__version__}\n")


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["config", "--help"], ["config", "check", "--help"],
                                  ["config", "schema", "--help"], ["report", "--help"]])
def test_help_exits_0_everywhere(tmp_path, args):
    result = run(tmp_path, "-m", "autograph", *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: autograph") and result.stderr == ""


def test_run_on_a_directory_is_one_clear_line(tmp_path):
    (tmp_path / "somedir").mkdir()
    result = run(tmp_path, "-m", "autograph", "run", "somedir")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "is a directory" in result.stderr and "Traceback" not in result.stderr


def test_flags_set_the_common_settings(project):
    result = run(project, "-m", "autograph", "run", "--packages", "ctlpkg", "--deny=ctlpkg:fails", "--threshold", "2",
                 "--verify", "--log", "recompiles", "--report-style", "quiet", "--report=r.json", "main.py", "ok")
    assert result.returncode == 0, result.stderr
    exported = eval(result.stdout.splitlines()[-1])  # noqa: S307 - the dict the script printed
    assert exported == {"AUTOGRAPH_PACKAGES": "ctlpkg", "AUTOGRAPH_DENY": "ctlpkg:fails",
                        "AUTOGRAPH_COMPILE_THRESHOLD": "2", "AUTOGRAPH_VERIFY": "1", "AUTOGRAPH_LOG": "recompiles",
                        "AUTOGRAPH_REPORT_STYLE": "quiet"}
    assert "autograph:" not in result.stderr  # quiet: the report is the JSON file only
    data = json.loads((project / "r.json").read_text())
    assert "step" in [f["qualname"] for f in data["functions"]]


def test_a_bad_flag_value_names_the_flag(project):
    result = run(project, "-m", "autograph", "run", "--threshold", "many", "main.py", "ok")
    assert result.returncode == 2 and "--threshold='many': expected a whole number" in result.stderr


def test_report_command_renders_a_saved_report(project):
    result = run(project, "-m", "autograph", "run", "--packages", "ctlpkg", "--report=r.json", "main.py", "ok")
    assert result.returncode == 0, result.stderr
    summary = run(project, "-m", "autograph", "report", "r.json")
    assert summary.returncode == 0, summary.stderr
    assert summary.stdout.splitlines()[0] == "autograph: 2 functions, 6 calls, 2 captures, 0 recompiles, 1 graph break"
    assert summary.stdout.rstrip().endswith("details: `autograph report r.json --all`")
    full = run(project, "-m", "autograph", "report", "r.json", "--all")
    assert "| step (__init__.py:4)" in full.stdout and "| graph breaks" in full.stdout
    bad = run(project, "-m", "autograph", "report", "main.py")
    assert bad.returncode == 2 and "not a run report" in bad.stderr


@pytest.mark.parametrize("route", ["launcher", "environment"])
def test_ctrl_c_keeps_the_report_and_exits_130(project, route):
    if route == "launcher":
        result = run(project, "-m", "autograph", "run", "--packages", "ctlpkg", "--report=r.json", "main.py",
                     "interrupt")
    else:
        result = run(project, "main.py", "interrupt", AUTOGRAPH_PACKAGES="ctlpkg", AUTOGRAPH_REPORT="r.json")
        if "autograph:" not in result.stderr:
            pytest.skip("autograph-startup.pth not in site-packages: run scripts/setup")
    assert result.returncode == -signal.SIGINT, result.stderr
    assert "KeyboardInterrupt" in result.stderr
    assert json.loads((project / "r.json").read_text())["functions"]
    assert "autograph: " in result.stderr and "details: `autograph report r.json --all`" in result.stderr
    frames = [line for line in result.stderr.splitlines() if line.strip().startswith("File ")]
    assert frames and not [f for f in frames if "/autograph/" in f], result.stderr


@pytest.mark.parametrize("route", ["launcher", "environment"])
def test_errors_in_compiled_functions_show_the_users_frames_only(project, route):
    if route == "launcher":
        result = run(project, "-m", "autograph", "run", "--packages", "ctlpkg", "main.py", "fail")
    else:
        result = run(project, "main.py", "fail", AUTOGRAPH_PACKAGES="ctlpkg", AUTOGRAPH_COMPILE_THRESHOLD="1")
    assert result.returncode == 1
    assert result.stderr.rstrip().endswith("ValueError: bad value")
    frames = [line.strip() for line in result.stderr.splitlines() if line.strip().startswith("File ")]
    assert not [f for f in frames if "/autograph/" in f or "<autograph" in f], result.stderr
    assert frames[-1].endswith("line 12, in fails"), result.stderr  # your name, not __resume_at_..._N
    assert "__resume_at_" not in result.stderr


def test_the_demo_prints_its_summary_in_at_most_40_lines(tmp_path):
    result = subprocess.run([sys.executable, "-m", "autograph", "run", "--config", "config/autograph.yaml",
                             "examples/train.py"], cwd=REPO, env=env_for(tmp_path), capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    out = (result.stdout + result.stderr).splitlines()
    assert len(out) <= 40, out
    assert out[-1] == "details: `autograph report ~/.cache/autograph/reports/last.json --all`"
    assert (tmp_path / ".cache" / "autograph" / "reports" / "last.json").is_file()
    assert max(len(line) for line in out) <= 100
    assert (REPO / "scripts" / "demo").read_text().rstrip().endswith(
        "exec .venv/bin/python -m autograph run --config config/autograph.yaml examples/train.py \"$@\"")
