"""The static ``AUTOGRAPH_*`` names of ``autograph.hook.env_names``: the same as the settings
model's, and what keeps pydantic out of interpreters whose variables ask for nothing."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from autograph import settings as settings_module
from autograph.hook import env_names

from .conftest import write_tree

REPO = Path(__file__).resolve().parents[2]
PTH = REPO / "autograph" / "hook" / "autograph-startup.pth"


def test_static_names_are_the_settings_models():
    assert env_names.SETTINGS_VARIABLES == set(settings_module.env_variable_names())
    assert settings_module.CONFIG_ENV == env_names.CONFIG
    assert set(env_names.ACTIVATING) <= env_names.SETTINGS_VARIABLES
    assert env_names.FALSE_WORDS == settings_module._FALSE
    assert env_names.OTHER_VARIABLES == settings_module.OTHER_VARIABLES


@pytest.mark.parametrize("env", [
    {}, {"AUTOGRAPH_PACKAGES": "m"}, {"AUTOGRAPH_PACKAGES": "  "}, {"AUTOGRAPH_CONFIG": ""},
    {"AUTOGRAPH_CONFIG": "a.yaml"}, {"AUTOGRAPH_PACKAGES": "m", "AUTOGRAPH": "0"},
    {"AUTOGRAPH_PACKAGES": "m", "AUTOGRAPH": " Off "}, {"AUTOGRAPH_BACKEND": "inductor"},
])
def test_startup_requested_agrees_with_the_settings(env):
    assert env_names.startup_requested(env) == settings_module.startup_requested(env)


def test_unknown_names_are_the_ones_the_settings_warn_about():
    env = {"AUTOGRAPH_PACKGES": "m", "AUTOGRAPH_BACKEND": "eager", "AUTOGRAPH_PYTHON": "python3",
           "AUTOGRAPH": "0", "AUTOGRAPH_X": "1", "HOME": "/"}
    assert env_names.unknown_names(env) == ["AUTOGRAPH_PACKGES", "AUTOGRAPH_X"]
    assert len(settings_module.unknown_variables(env)) == 2
    assert not env_names.startup_has_work({"AUTOGRAPH_BACKEND": "eager", "AUTOGRAPH_CACHE_DIR": "/tmp"})
    assert env_names.startup_has_work({"AUTOGRAPH_BACKEND": "eager", "AUTOGRAPH_X": "1"})
    assert env_names.startup_has_work({"AUTOGRAPH_CONFIG": "a.yaml"})


# ---------------------------------------------------------------- fresh interpreters

PROBE = "import sys; print(sorted(m for m in sys.modules if m.startswith(('autograph.', 'pydantic', 'torch'))))"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(REPO)])
    env.update(extra)
    return env


def _run_with_source_pth(tmp_path: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` in an interpreter whose only start-up ``.pth`` is this checkout's (``-S``: the
    installed copy, which may be older, does not run; site-packages is on the path, unprocessed)."""
    site_dir = tmp_path / "site"
    site_dir.mkdir(exist_ok=True)
    (site_dir / PTH.name).write_text(PTH.read_text())
    prelude = (f"import sys, site; sys.path.append({sysconfig.get_paths()['purelib']!r}); "
               f"site.addsitedir({str(site_dir)!r})\n")
    return subprocess.run([sys.executable, "-S", "-c", prelude + textwrap.dedent(code)], cwd=tmp_path,
                          env=_env(tmp_path, **env), capture_output=True, text=True, timeout=120)


def _run_activate(tmp_path: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` after ``startup.activate()`` as an older installed ``.pth`` line calls it."""
    prelude = "import autograph.hook.startup as s; s.activate()\n"
    return subprocess.run([sys.executable, "-S", "-c", prelude + textwrap.dedent(code)], cwd=tmp_path,
                          env=_env(tmp_path, **env), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("run", [_run_with_source_pth, _run_activate])
@pytest.mark.parametrize("variables", [{"AUTOGRAPH_BACKEND": "inductor"},
                                       {"AUTOGRAPH_CACHE_DIR": "/tmp/x", "AUTOGRAPH_REPORT": "1"},
                                       {"AUTOGRAPH_PACKAGES": "m", "AUTOGRAPH": "0"}])
def test_variables_that_select_nothing_import_neither_pydantic_nor_the_settings(tmp_path, run, variables):
    """Inductor's ``python -c`` ISA probes inherit the benchmark's ``AUTOGRAPH_CACHE_DIR``: they
    must start as fast as without it."""
    result = run(tmp_path, PROBE, **variables)
    assert result.returncode == 0, result.stderr
    imported = set(eval(result.stdout))
    allowed = {"autograph.hook", "autograph.hook.env_names"}
    if run is _run_activate:
        allowed.add("autograph.hook.startup")  # imported by the old line itself
    assert imported == allowed, imported - allowed
    assert result.stderr == ""


def test_a_misspelt_variable_still_gets_its_warning(tmp_path):
    result = _run_with_source_pth(tmp_path, "print('ran')", AUTOGRAPH_PACKGES="m")
    assert result.stdout == "ran\n"
    assert "unknown environment variable AUTOGRAPH_PACKGES is ignored; did you mean 'AUTOGRAPH_PACKAGES'?" \
        in result.stderr


def test_packages_variable_activates_the_hook(tmp_path):
    write_tree(tmp_path, {"agenv/__init__.py": "", "agenv/ops.py": "def inc(x):\n    return x + 1\n"})
    code = """
        import agenv.ops
        from autograph.hook.instrument import is_wrapped
        print(is_wrapped(agenv.ops.inc), 'autograph.settings' in sys.modules)
    """
    result = _run_with_source_pth(tmp_path, "import sys\n" + textwrap.dedent(code), AUTOGRAPH_PACKAGES="agenv",
                                  AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True True"
