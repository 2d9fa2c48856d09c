"""``python -m autograph``: run scripts and modules exactly like Python does; config check/schema.

Every scenario runs as a subprocess; where it makes sense the same target is also run
with plain ``python`` and the two results must match.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SCRIPT = '''
import os, sys
print("argv", sys.argv)
print("name", __name__)
print("path0", sys.path[0])
print("file", __file__)
if len(sys.argv) > 1 and sys.argv[1] == "exit":
    sys.exit(int(sys.argv[2]))
if len(sys.argv) > 1 and sys.argv[1] == "exit-message":
    sys.exit("leaving with a message")
if len(sys.argv) > 1 and sys.argv[1] == "raise":
    def inner():
        raise ValueError("boom from the script")
    inner()
if len(sys.argv) > 1 and sys.argv[1] == "interrupt":
    raise KeyboardInterrupt
'''


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(tmp_path / "lib")])
    env.update(extra)
    return env


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env_for(tmp_path, **env),
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "prog.py").write_text(SCRIPT)
    lib = tmp_path / "lib" / "agcli"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "ops.py").write_text("def inc(x):\n    return x + 1\n\ndef fail(x):\n    raise ValueError(f'bad {x}')\n")
    (lib / "prog.py").write_text(SCRIPT)
    (lib / "uses.py").write_text(textwrap.dedent("""
        import os, sys
        from autograph.hook.instrument import is_wrapped
        import agcli.ops
        print("wrapped", is_wrapped(agcli.ops.inc))
        print("report", os.environ.get("AUTOGRAPH_REPORT"), "backend", os.environ.get("AUTOGRAPH_BACKEND"))
        if "--child" in sys.argv:
            import subprocess
            out = subprocess.run([sys.executable, "-c", "from autograph.hook.instrument import is_wrapped; "
                                  "import agcli.ops; print(is_wrapped(agcli.ops.inc))"], capture_output=True, text=True)
            print("child wrapped", out.stdout.strip(), out.stderr.strip())
    """))
    return tmp_path


def lines(result: subprocess.CompletedProcess) -> list[str]:
    return result.stdout.splitlines()


NOTHING_SELECTED = "autograph: warning: no package is selected (packages.allow is empty)"


def without_nothing_selected(stderr: str) -> str:
    """The launcher's stderr less its one warning that no package is selected (these scripts
    select nothing on purpose: they check that the launcher runs them exactly like Python)."""
    first, _, rest = stderr.partition("\n")
    assert first.startswith(NOTHING_SELECTED), stderr
    return rest


@pytest.mark.parametrize("args", [["a", "--flag", "-m", "x"], ["exit", "3"], ["exit", "0"], ["exit-message"]])
def test_script_behaves_like_python(project, args):
    plain = run(project, "scripts/prog.py", *args)
    ours = run(project, "-m", "autograph", "run", "scripts/prog.py", *args)
    assert ours.returncode == plain.returncode
    assert lines(ours) == lines(plain)
    assert without_nothing_selected(ours.stderr) == plain.stderr


def test_script_argv_name_and_path(project):
    result = run(project, "-m", "autograph", "run", "scripts/prog.py", "one", "two")
    assert result.returncode == 0, result.stderr
    out = lines(result)
    assert out[0] == "argv ['scripts/prog.py', 'one', 'two']"
    assert out[1] == "name __main__"
    assert out[2] == f"path0 {project / 'scripts'}"
    assert out[3] == f"file {project / 'scripts' / 'prog.py'}"


def test_script_exception_traceback_has_no_autograph_frames(project):
    plain = run(project, "scripts/prog.py", "raise")
    ours = run(project, "-m", "autograph", "run", "scripts/prog.py", "raise")
    assert ours.returncode == plain.returncode == 1
    assert "ValueError: boom from the script" in ours.stderr
    frames = [line for line in ours.stderr.splitlines() if line.strip().startswith("File ")]
    assert frames and all("prog.py" in line for line in frames), ours.stderr
    assert without_nothing_selected(ours.stderr) == plain.stderr


def test_traceback_through_compiled_functions_hides_autograph_frames(project):
    (project / "calls.py").write_text("import agcli.ops\nagcli.ops.fail(3)\n")
    result = run(project, "-m", "autograph", "run", "calls.py", AUTOGRAPH_PACKAGES="agcli")
    assert result.returncode == 1
    assert result.stderr.rstrip().endswith("ValueError: bad 3")
    frames = [line.strip() for line in result.stderr.splitlines() if line.strip().startswith("File ")]
    assert frames[0].startswith(f'File "{project / "calls.py"}"')
    assert any("ops.py" in frame for frame in frames)
    assert not [f for f in frames if "/autograph/" in f], result.stderr


def test_keyboard_interrupt_exits_like_python(project):
    plain = run(project, "scripts/prog.py", "interrupt")
    ours = run(project, "-m", "autograph", "run", "scripts/prog.py", "interrupt")
    assert plain.returncode == -signal.SIGINT
    assert ours.returncode == plain.returncode
    assert "KeyboardInterrupt" in ours.stderr


@pytest.mark.parametrize("args", [["x", "--y"], ["exit", "5"]])
def test_module_behaves_like_python_dash_m(project, args):
    plain = run(project, "-m", "agcli.prog", *args)
    ours = run(project, "-m", "autograph", "run", "-m", "agcli.prog", *args)
    assert ours.returncode == plain.returncode
    assert lines(ours) == lines(plain)
    out = lines(ours)
    assert out[0] == f"argv ['{project / 'lib' / 'agcli' / 'prog.py'}', '{args[0]}', '{args[1]}']"
    assert out[1] == "name __main__"
    assert out[2] == f"path0 {project}"


def test_missing_module_and_missing_script(project):
    plain = run(project, "-m", "agcli.nope")
    ours = run(project, "-m", "autograph", "run", "-m", "agcli.nope")
    assert ours.returncode == plain.returncode == 1
    assert without_nothing_selected(ours.stderr) == plain.stderr
    missing = run(project, "-m", "autograph", "run", "nope.py")
    assert missing.returncode == 2 and "can't open file" in missing.stderr


def test_selected_package_is_instrumented_and_settings_exported(project):
    result = run(project, "-m", "autograph", "run", "--backend", "eager", "--report=out.json", "-m", "agcli.uses",
                 AUTOGRAPH_PACKAGES="agcli")
    assert result.returncode == 0, result.stderr
    assert lines(result)[:2] == ["wrapped True", "report out.json backend eager"]


def test_config_flag_selects_packages(project):
    (project / "cfg.yaml").write_text("packages:\n  allow: [agcli]\nbackend: eager\n")
    result = run(project, "-m", "autograph", "run", "--config", "cfg.yaml", "-m", "agcli.uses")
    assert result.returncode == 0, result.stderr
    assert lines(result)[:2] == ["wrapped True", "report 0 backend eager"]


def test_not_selected_means_not_instrumented(project):
    result = run(project, "-m", "autograph", "run", "-m", "agcli.uses")
    assert lines(result)[0] == "wrapped False", result.stderr


def test_child_process_inherits_the_selection(project):
    import site

    if not any((Path(d) / "autograph-startup.pth").is_file() for d in site.getsitepackages()):
        pytest.skip("autograph-startup.pth not installed: run scripts/setup")
    (project / "cfg.yaml").write_text("packages:\n  allow: [agcli]\n")
    result = run(project, "-m", "autograph", "run", "--config", "cfg.yaml", "-m", "agcli.uses", "--child")
    assert result.returncode == 0, result.stderr
    assert "child wrapped True " in result.stdout + " ", result.stdout


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--backend", "trition"], "did you mean 'triton'?"),
        (["--config", "bad.yaml"], "bad.yaml:3:1: malformed YAML"),
        (["--config", "missing.yaml"], "settings file not found"),
    ],
)
def test_bad_settings_stop_before_the_script_runs(project, args, fragment):
    (project / "bad.yaml").write_text("packages:\n  allow: [a\n")
    result = run(project, "-m", "autograph", "run", *args, "scripts/prog.py")
    assert result.returncode == 2
    assert fragment in result.stderr
    assert result.stdout == ""  # the script never ran


def test_bad_environment_stops_before_the_script_runs(project):
    result = run(project, "-m", "autograph", "run", "scripts/prog.py", AUTOGRAPH_MODE="fast")
    assert result.returncode == 2 and "AUTOGRAPH_MODE" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("args", [["run"], ["run", "--frobnicate", "x.py"], ["run", "-m"], ["bogus"], ["config"], []])
def test_usage_errors(project, args):
    result = run(project, "-m", "autograph", *args)
    assert result.returncode == 2
    assert "usage: autograph run" in result.stderr


def test_help(project):
    result = run(project, "-m", "autograph", "--help")
    assert result.returncode == 0 and "config check" in result.stdout


def test_config_check_prints_effective_settings(project):
    (project / "cfg.yaml").write_text("packages:\n  allow: [agcli]\nbackend: eager\n")
    result = run(project, "-m", "autograph", "config", "check", "cfg.yaml", AUTOGRAPH_PACKAGES="more")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("# settings OK - from cfg.yaml; environment: AUTOGRAPH_PACKAGES\n")
    assert "  allow:\n  - agcli\n  - more\n" in out and "backend: eager\n" in out


def test_config_check_defaults_to_autograph_yaml(project):
    (project / "autograph.yaml").write_text("mode: run-only\n")
    result = run(project, "-m", "autograph", "config", "check")
    assert result.returncode == 0 and "mode: run-only" in result.stdout
    assert "from autograph.yaml" in result.stdout


def test_config_check_reports_errors(project):
    (project / "cfg.yaml").write_text("backend: eager\nrecompile_limt: 3\n")
    result = run(project, "-m", "autograph", "config", "check", "cfg.yaml")
    assert result.returncode == 2
    assert "cfg.yaml:2:1: unknown key 'recompile_limt'; did you mean 'recompile_limit'?" in result.stderr


def test_config_schema_is_the_committed_one(project):
    result = run(project, "-m", "autograph", "config", "schema")
    assert result.returncode == 0
    assert json.loads(result.stdout) == json.loads((REPO / "config" / "settings.schema.json").read_text())


def test_console_script(project):
    exe = Path(sys.executable).with_name("autograph")
    if not exe.exists():
        pytest.skip("autograph console script not installed: run scripts/setup")
    result = subprocess.run([str(exe), "run", "scripts/prog.py", "exit", "4"], cwd=project, env=env_for(project),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 4
    assert lines(result)[0] == "argv ['scripts/prog.py', 'exit', '4']"
    assert lines(result)[2] == f"path0 {project / 'scripts'}"


def test_log_channels_and_report_reach_the_explain_room(project):
    pytest.importorskip("autograph.explain.events")
    pytest.importorskip("autograph.explain.report")
    (project / "lib" / "agcli" / "brk.py").write_text(
        "import torch\n\ndef f(x):\n    y = x + 1\n    print('side effect')\n    return y * 2\n")
    (project / "brk.py").write_text("import torch, agcli.brk\nprint(agcli.brk.f(torch.ones(2)).tolist())\n")
    result = run(project, "-m", "autograph", "run", "--report", "brk.py", AUTOGRAPH_PACKAGES="agcli",
                 AUTOGRAPH_LOG="graph_breaks", AUTOGRAPH_COMPILE_THRESHOLD="1")
    assert result.returncode == 0, result.stderr
    assert lines(result) == ["side effect", "[4.0, 4.0]"]
    assert "[autograph.breaks]" in result.stderr  # settings.log switched the channel on
    assert "report" in result.stderr.split("[autograph.breaks]")[1]  # the run report, printed at exit


def test_readme_shows_the_real_config_check_output(tmp_path):
    env = env_for(tmp_path)
    result = subprocess.run([sys.executable, "-m", "autograph", "config", "check", "config/autograph.yaml"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    readme = (REPO / "docs" / "guide" / "settings.md").read_text()
    assert "$ python -m autograph config check config/autograph.yaml\n" + result.stdout in readme


def test_patching_an_instrumented_submodule_forward_on_the_instance_recaptures(tmp_path):
    """Hook libraries replace ``module.forward`` on the instance; classes instrumented by
    the import hook hold wrapt wrappers, so the capture guards that no instance attribute
    shadows the method."""
    lib = tmp_path / "lib" / "agpatch"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(textwrap.dedent("""
        from torch import nn

        class Inner(nn.Module):
            def forward(self, x):
                return x * 2

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()

            def forward(self, x):
                return self.inner(x)

        def step(m, x):
            return m(x) + 1
    """))
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        import torch, agpatch
        m, x = agpatch.Outer(), torch.ones(3)
        print(agpatch.step(m, x).tolist(), agpatch.step(m, x).tolist())
        m.inner.forward = lambda x: x * 7
        print(agpatch.step(m, x).tolist())
    """))
    proc = run(tmp_path, "-m", "autograph", "run", "main.py", AUTOGRAPH_PACKAGES="agpatch", AUTOGRAPH_BACKEND="eager")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["[3.0, 3.0, 3.0] [3.0, 3.0, 3.0]", "[8.0, 8.0, 8.0]"], proc.stdout


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a [x, x]\nb: [*a, *a]\n"], ids=["recursive", "repeat"])
def test_yaml_aliases_stop_every_entry_point_with_status_2(project, text):
    (project / "cfg.yaml").write_text(text)
    (project / "autograph.yaml").write_text(text)
    (project / "hello.py").write_text("print('script ran')\n")
    for argv, extra in ((["-m", "autograph", "config", "check", "cfg.yaml"], {}),
                        (["-m", "autograph", "run", "--config", "cfg.yaml", "hello.py"], {}),
                        (["-m", "autograph", "run", "hello.py"], {}),  # ./autograph.yaml
                        (["hello.py"], {"AUTOGRAPH_CONFIG": "cfg.yaml"})):
        result = run(project, *argv, **extra)
        assert result.returncode == 2, (argv, result.stderr)
        assert "aliases are not allowed" in result.stderr and "script ran" not in result.stdout
        assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- a newcomer's first commands


def test_a_python_without_autographs_dependencies_gets_one_sentence(project):
    """`python -S` drops site-packages (torch, pydantic, yaml...) but keeps PYTHONPATH (the tree)."""
    (project / "hello.py").write_text("print('script ran')\n")
    for argv, names in ((["-S", "-m", "autograph", "run", "hello.py"], ("torch", "pydantic", "PyYAML")),
                        (["-S", "-m", "autograph", "config", "check"], ("pydantic", "PyYAML"))):
        result = run(project, *argv)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert "cannot import" in result.stderr and all(name in result.stderr for name in names)
        assert ".venv/bin/python -m autograph" in result.stderr and "script ran" not in result.stdout


def test_another_installed_python_without_torch_gets_one_sentence(project):
    import glob

    pythons = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12")))
    if not pythons:
        pytest.skip("no pyenv Python 3.12 here")
    probe = subprocess.run([pythons[0], "-c", "import torch"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("that Python has torch")
    (project / "hello.py").write_text("print('script ran')\n")
    result = subprocess.run([pythons[0], "-m", "autograph", "run", "hello.py"], cwd=project, capture_output=True,
                            text=True, timeout=120, env=env_for(project))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "cannot import torch" in result.stderr


def test_config_schema_into_a_closed_pipe_exits_quietly(project):
    child = subprocess.Popen([sys.executable, "-m", "autograph", "config", "schema"], cwd=project,
                             env=env_for(project), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the schema is written (`| head` that already quit)
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=120) == 1
    assert stderr == ""


def test_report_variable_prints_the_report_with_autograph_compile_alone(project):
    (project / "compiled.py").write_text(textwrap.dedent("""
        import torch
        import autograph

        @autograph.compile(backend="eager")
        def f(x):
            return torch.relu(x) * 2

        for _ in range(3):
            f(torch.ones(3))
        print("done")
    """))
    result = run(project, "compiled.py", AUTOGRAPH_REPORT="1", AUTOGRAPH_CACHE_DIR=str(project / "cache"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"
    assert "autograph: 1 function, 3 calls, 1 capture," in result.stderr
    assert re.search(r"^f +compiled\.py:\d+ +3 ", result.stderr, re.M), result.stderr
    quiet = run(project, "compiled.py")
    assert "autograph:" not in quiet.stderr


def test_readme_tells_a_newcomer_which_python_to_use():
    readme = (REPO / "README.md").read_text()
    setup = readme.split("## Two commands", 1)[1].split("\n## Selecting", 1)[0]
    assert ".venv/bin/python" in setup and "source .venv/bin/activate" in setup
    assert "$ scripts/demo\nstep  1  loss" in setup and "autograph: 9 functions" in setup
