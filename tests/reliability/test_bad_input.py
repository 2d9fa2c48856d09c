"""Invalid settings files and backends stop ``python -m autograph run`` before any user code runs.

The script's first statement writes a marker file: it must not exist afterwards.
A rule that selects nothing is not an error but gets a warning at exit.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.conftest import run_autograph, write

SCRIPT = 'open("ran.marker", "w").write("user code ran")\nprint("script done")\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, {
        "script.py": SCRIPT,
        "userpkg/__init__.py": "",
        "userpkg/circ_a.py": "from userpkg.circ_b import backend\n",
        "userpkg/circ_b.py": "from userpkg.circ_a import backend\n",
        "userpkg/raises.py": "raise RuntimeError('boom while importing')\ndef backend(gm, example_inputs):\n    return gm\n",
        "userpkg/self_import.py": "import userpkg.self_import\ndef backend(gm, example_inputs):\n    return gm.forward\n",
        "userpkg/not_callable.py": "backend = 42\n",
    })
    (tmp_path / "empty.yaml").write_bytes(b"")
    (tmp_path / "blank.yaml").write_bytes(b"  \n\n\t\n")
    (tmp_path / "binary.yaml").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    (tmp_path / "latin1.yaml").write_bytes("backend: eager\npackages:\n  allow: [caf\u00e9]\n".encode("latin-1"))
    (tmp_path / "huge.yaml").write_text("# padding\n" * 200_000 + "backend: eager\n")
    (tmp_path / "malformed.yaml").write_text("backend: [eager\n")
    (tmp_path / "unknown_key.yaml").write_text("bakend: eager\n")
    (tmp_path / "wrong_type.yaml").write_text("recompile_limit: many\n")
    return tmp_path


BAD = [
    (["--config", "empty.yaml"], "empty.yaml: the settings file is empty"),
    (["--config", "blank.yaml"], "blank.yaml: the settings file is empty"),
    (["--config", "binary.yaml"], "binary.yaml: this is a binary file"),
    (["--config", "latin1.yaml"], "latin1.yaml:3:14: the settings file is not UTF-8 text (byte 0xe9)"),
    (["--config", "huge.yaml"], "huge.yaml: the settings file is 2,000,015 bytes"),
    (["--config", "malformed.yaml"], "malformed.yaml:2:1: malformed YAML"),
    (["--config", "unknown_key.yaml"], "backend"),
    (["--config", "wrong_type.yaml"], "recompile_limit"),
    (["--config", "missing.yaml"], "missing.yaml"),
    (["--backend", "nosuch"], "nosuch"),
    (["--backend", "userpkg.circ_a:backend"], "circular import"),
    (["--backend", "userpkg.raises:backend"], "raised RuntimeError: boom while importing at "),
    (["--backend", "userpkg.not_callable:backend"], "is not callable"),
    (["--backend", "userpkg.nomodule:backend"], "cannot import module 'userpkg.nomodule'"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_stops_before_user_code(project, args, message):
    done = run_autograph(["run", *args, "script.py"], cwd=project)
    assert done.returncode != 0, done.stdout + done.stderr
    assert not (project / "ran.marker").exists(), "user code ran despite invalid settings"
    assert "nothing was run" in done.stderr
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, "a clear message, not a crash"


def test_bad_environment_setting_stops_before_user_code(project):
    done = run_autograph(["run", "script.py"], cwd=project, env={"AUTOGRAPH_BACKEND": "userpkg.raises:backend"})
    assert done.returncode != 0
    assert not (project / "ran.marker").exists()
    assert "boom while importing" in done.stderr


def test_self_importing_backend_module_is_fine(project):
    """A module importing itself is legal Python: the backend loads and the script runs."""
    done = run_autograph(["run", "--backend", "userpkg.self_import:backend", "script.py"], cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / "ran.marker").exists()


def test_rule_matching_nothing_warns_at_exit(project):
    write(project, {"uses_pkg.py": "import userpkg\n" + SCRIPT})
    done = run_autograph(["run", "uses_pkg.py"], cwd=project, env={"AUTOGRAPH_PACKAGES": "usrpkg,userpkg"})
    assert done.returncode == 0, done.stderr
    assert (project / "ran.marker").exists()
    assert "the rule 'usrpkg'" in done.stderr and "matched no imported module" in done.stderr
    assert "the rule 'userpkg'" not in done.stderr  # it selected an imported module: no warning
