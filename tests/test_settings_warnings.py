"""No silent no-ops: each setting that would make autograph quietly do nothing gets a warning
(or, for pyproject.toml, is read as other tools read theirs)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograph.errors import SettingsError
from autograph.settings import (
    Settings,
    load_settings,
    nothing_selected,
    start_warnings,
    unknown_variables,
    unread_config_files,
    unusable_dump_dir,
)

REPO = Path(__file__).resolve().parents[1]


def test_unknown_variable_gets_a_did_you_mean():
    (message,) = unknown_variables({"AUTOGRAPH_PACKGES": "mymodels", "AUTOGRAPH_BACKEND": "eager", "HOME": "/"})
    assert "AUTOGRAPH_PACKGES" in message and "did you mean 'AUTOGRAPH_PACKAGES'?" in message


def test_known_variables_and_the_setup_python_are_not_warned_about():
    assert unknown_variables({"AUTOGRAPH": "0", "AUTOGRAPH_PYTHON": "python3.11", "AUTOGRAPH_REPORT_STYLE": "all"}) == []


def test_autograph_yml_is_named(tmp_path):
    (tmp_path / "autograph.yml").write_text("packages:\n  allow: [x]\n")
    (message,) = unread_config_files({}, tmp_path)
    assert message.startswith("autograph.yml is not read") and "rename it to autograph.yaml" in message
    assert unread_config_files({"AUTOGRAPH_CONFIG": ""}, tmp_path) == []  # the launcher's children


def test_nothing_selected_is_named():
    (message,) = nothing_selected(Settings())
    assert "no package is selected" in message
    assert nothing_selected(Settings(packages={"allow": ["x"]})) == []
    assert nothing_selected(Settings(mode="off")) == []


def test_a_dump_directory_that_cannot_exist_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    (message,) = unusable_dump_dir(Settings(dump=blocker / "x"))
    assert "cannot be created" in message and "no dumps will be written" in message
    assert unusable_dump_dir(Settings(dump=tmp_path / "dumps")) == [] and (tmp_path / "dumps").is_dir()


def test_start_warnings_collects_them_all(tmp_path):
    messages = start_warnings(Settings(dump=Path("/etc/passwd/x")), {"AUTOGRAPH_PACKGES": "m", "AUTOGRAPH_CONFIG": ""})
    assert len(messages) == 3


def test_pyproject_tool_autograph_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""
        [project]
        name = "x"

        [tool.autograph]
        backend = "eager"
        compile_threshold = 1
        packages = { allow = ["mymodels"] }
    """))
    settings = load_settings(env={})
    assert (settings.backend, settings.compile_threshold, settings.packages.allow) == ("eager", 1, ("mymodels",))
    (tmp_path / "autograph.yaml").write_text("backend: inductor\n")  # autograph.yaml comes first
    assert load_settings(env={}).backend == "inductor"


def test_pyproject_errors_name_the_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.autograph]\nbackend = "eagr"\n')
    with pytest.raises(SettingsError, match=r"pyproject.toml \[tool.autograph\]: backend: unknown backend 'eagr'; "
                                            r"did you mean 'eager'"):
        load_settings(env={})


def test_a_pyproject_without_the_table_is_not_a_settings_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.black]\nline-length = 100\n')
    assert load_settings(env={}) == Settings()
    with pytest.raises(SettingsError, match=r"no \[tool.autograph\] table"):
        load_settings(tmp_path / "pyproject.toml", env={})


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(tmp_path)]), HOME=str(tmp_path), **extra)
    return env


def test_a_misspelt_variable_is_named_at_interpreter_start(tmp_path):
    """The start-up .pth line now also fires on an AUTOGRAPH_* variable it does not know (here
    loaded from a site directory of its own, as site-packages would)."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "autograph-startup.pth").write_text((REPO / "autograph" / "hook" / "autograph-startup.pth").read_text())
    result = subprocess.run([sys.executable, "-c", f"import site; site.addsitedir({str(site_dir)!r}); print('ran')"],
                            cwd=tmp_path, env=_env(tmp_path, AUTOGRAPH_PACKGES="mymodels"), capture_output=True,
                            text=True, timeout=120)
    assert result.stdout == "ran\n"
    assert "unknown environment variable AUTOGRAPH_PACKGES is ignored; did you mean 'AUTOGRAPH_PACKAGES'?" in result.stderr


def test_env_route_names_a_rule_that_matched_no_imported_module(tmp_path):
    (tmp_path / "main.py").write_text("print('ran')\n")
    result = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, env=_env(tmp_path, AUTOGRAPH_PACKAGES="nosuchpkg"),
                            capture_output=True, text=True, timeout=120)
    import site

    if not any((Path(d) / "autograph-startup.pth").is_file() for d in site.getsitepackages()):
        pytest.skip("autograph-startup.pth not in site-packages: run scripts/setup")
    assert result.stdout == "ran\n"
    assert "the rule 'nosuchpkg' (packages.allow / AUTOGRAPH_PACKAGES) matched no imported module" in result.stderr


def test_launcher_names_an_unusable_dump_directory(tmp_path):
    (tmp_path / "main.py").write_text("print('ran')\n")
    result = subprocess.run([sys.executable, "-m", "autograph", "run", "main.py"], cwd=tmp_path,
                            env=_env(tmp_path, AUTOGRAPH_DUMP="/etc/passwd/x", AUTOGRAPH_PACKGES="x"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout == "ran\n"
    assert "dump directory '/etc/passwd/x' cannot be created" in result.stderr
    assert "did you mean 'AUTOGRAPH_PACKAGES'?" in result.stderr
    assert "no package is selected" in result.stderr
