"""The ``.pth`` start-up hook, in fresh interpreters (needs the project installed: scripts/setup)."""
from __future__ import annotations

import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import write_tree

REPO = Path(__file__).resolve().parents[2]
PTH = "autograph-startup.pth"


def _pth_installed() -> bool:
    return any((Path(d) / PTH).is_file() for d in site.getsitepackages())


needs_pth = pytest.mark.skipif(not _pth_installed(), reason=f"{PTH} not in site-packages: run scripts/setup")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(REPO)])
    env.update(extra)
    return env


def _python(tmp_path: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, env=_env(tmp_path, **env),
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def pkg(tmp_path):
    write_tree(tmp_path, {
        "agstart/__init__.py": "",
        "agstart/ops.py": "def inc(x):\n    return x + 1\n",
        "agstart/check.py": """
            from autograph.hook.instrument import is_wrapped
            import agstart.ops

            def report():
                return f"wrapped={is_wrapped(agstart.ops.inc)}"
        """,
    })
    return tmp_path


def test_pth_file_content_is_one_import_line():
    text = (REPO / "autograph" / "hook" / PTH).read_text()
    assert text.count("\n") == 1 and text.startswith("import ")
    assert "AUTOGRAPH_PACKAGES" in text and "AUTOGRAPH_CONFIG" in text


@needs_pth
def test_packages_variable_activates_the_hook(pkg):
    result = _python(pkg, "import agstart.check as c; print(c.report())", AUTOGRAPH_PACKAGES="agstart")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "wrapped=True"


@needs_pth
def test_config_variable_activates_the_hook(pkg):
    (pkg / "cfg.yaml").write_text("packages:\n  allow: [agstart.ops]\n")
    result = _python(pkg, "import agstart.check as c; print(c.report())", AUTOGRAPH_CONFIG=str(pkg / "cfg.yaml"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "wrapped=True"


@needs_pth
def test_without_variables_autograph_is_not_even_imported(pkg):
    result = _python(pkg, "import sys; before = 'autograph' in sys.modules\nimport agstart.check as c; print(c.report(), before)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "wrapped=False False"


@needs_pth
def test_autograph_zero_turns_it_off(pkg):
    result = _python(pkg, "import agstart.check as c; print(c.report())", AUTOGRAPH_PACKAGES="agstart", AUTOGRAPH="0")
    assert result.stdout.strip() == "wrapped=False", result.stderr


@needs_pth
def test_startup_does_not_import_torch(pkg):
    result = _python(pkg, "import sys; print('torch' in sys.modules, 'autograph.hook.finder' in sys.modules)",
                     AUTOGRAPH_PACKAGES="agstart")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False True"


@needs_pth
def test_bad_settings_stop_the_interpreter(pkg):
    marker = pkg / "ran"
    result = _python(pkg, f"open({str(marker)!r}, 'w').close()", AUTOGRAPH_PACKAGES="agstart,bad rule")
    assert result.returncode == 2
    assert "AUTOGRAPH_PACKAGES" in result.stderr and "invalid rule 'bad rule'" in result.stderr
    assert not marker.exists()


@needs_pth
def test_spawn_child_is_instrumented_via_the_environment(pkg):
    (pkg / "parent.py").write_text(textwrap.dedent("""
        import multiprocessing as mp
        import agstart.check
        from autograph.hook.instrument import is_wrapped
        import agstart.ops

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            with ctx.Pool(1) as pool:
                child = pool.apply(agstart.check.report)
                # the wrapped function itself is pickled by name and called in the child
                value = pool.apply(agstart.ops.inc, (41,))
            print("parent", agstart.check.report())
            print("child", child)
            print("pickled call", value, is_wrapped(agstart.ops.inc))
    """))
    result = subprocess.run([sys.executable, "parent.py"], cwd=pkg, env=_env(pkg, AUTOGRAPH_PACKAGES="agstart"),
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "parent wrapped=True",
        "child wrapped=True",
        "pickled call 42 True",
    ]


def test_report_goes_to_the_report_room_when_it_exists(monkeypatch):
    import types

    from autograph.hook import startup
    from autograph.settings import Settings

    seen = []
    fake = types.ModuleType("autograph.explain.report")
    fake.print_report = seen.append
    monkeypatch.setitem(sys.modules, "autograph.explain.report", fake)
    monkeypatch.setattr(startup, "_report_settings", None)
    monkeypatch.setattr(startup.atexit, "register", lambda fn: None)
    from autograph.explain import torch_calls

    counting = torch_calls.active()
    quiet, loud = Settings(), Settings(report=True)
    try:
        startup.print_report_at_exit(quiet)
        startup._report_now()
        assert seen == []  # report: false prints nothing
        startup.print_report_at_exit(loud)  # a later call only swaps the settings (and starts counting)
        startup._report_now()
        assert seen == [loud]
    finally:
        if not counting:  # later tests expect no torch-call counter in this process
            torch_calls.stop()
            torch_calls.reset()


def test_report_is_silent_without_the_report_room(monkeypatch):
    from autograph.hook import startup
    from autograph.settings import Settings

    monkeypatch.setitem(sys.modules, "autograph.explain.report", None)  # import raises ModuleNotFoundError
    try:
        startup.print_report(Settings(report=True))
    except ModuleNotFoundError as exc:  # pragma: no cover - shows the failure clearly
        pytest.fail(f"print_report must be silent when the report room is missing: {exc}")


# ---------------------------------------------------------------- robust start-up (issue 16.7)

IMPORT_TORCH = "import torch, agstart.check as c; print('ok', torch.ones(2).sum().item(), c.report())"


@needs_pth
@pytest.mark.parametrize("rule", ["torch", "torch.nn", "collections", "wrapt", "yaml", "pydantic"])
def test_selecting_autograph_dependencies_or_the_stdlib_is_refused_before_the_script_runs(pkg, rule):
    marker = pkg / "ran"
    result = _python(pkg, f"open({str(marker)!r}, 'w').close()", AUTOGRAPH_PACKAGES=rule)
    assert result.returncode == 2, result.stderr
    assert f"rule {rule!r} selects only modules of" in result.stderr and "never instruments" in result.stderr
    assert not marker.exists() and "Traceback" not in result.stderr


@needs_pth
@pytest.mark.parametrize("rule", ["*", "*:inc", "agst*,tor*"])
def test_wildcard_rules_work_and_never_touch_autograph_dependencies(pkg, rule):
    """'*' used to hang at start-up (the shim lock) or break `import torch` (a partially
    initialised torch); now the deny list applies and the program runs."""
    result = _python(pkg, IMPORT_TORCH + "\nimport sys, functools, collections\n"
                     "from autograph.hook.instrument import is_wrapped\n"
                     "print(is_wrapped(functools.update_wrapper), is_wrapped(torch.nn.functional.relu))",
                     AUTOGRAPH_PACKAGES=rule)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ok 2.0 wrapped=True", "False False"]


@needs_pth
def test_the_startup_hook_checks_a_backend_exactly_as_the_launcher(pkg):
    marker = pkg / "ran"
    result = _python(pkg, f"open({str(marker)!r}, 'w').close()", AUTOGRAPH_PACKAGES="agstart",
                     AUTOGRAPH_BACKEND="nosuch:fn")
    assert result.returncode == 2 and "cannot import module 'nosuch'" in result.stderr
    assert not marker.exists()
    # a backend module next to the script is found, as `python -m autograph run script.py` finds it
    (pkg / "app").mkdir()
    (pkg / "app" / "mybackend.py").write_text("def fast(gm, example_inputs):\n    return gm\n")
    (pkg / "app" / "main.py").write_text("print('script ran')\n")
    for argv in (["app/main.py"], ["-m", "autograph", "run", "app/main.py"]):
        ok = subprocess.run([sys.executable, *argv], cwd=pkg, capture_output=True, text=True, timeout=120,
                            env=_env(pkg, AUTOGRAPH_PACKAGES="agstart", AUTOGRAPH_BACKEND="mybackend:fast"))
        assert ok.returncode == 0 and ok.stdout.strip() == "script ran", (argv, ok.stderr)
    bad = subprocess.run([sys.executable, "app/main.py"], cwd=pkg, capture_output=True, text=True, timeout=120,
                         env=_env(pkg, AUTOGRAPH_PACKAGES="agstart", AUTOGRAPH_BACKEND="mybackend:slow"))
    assert bad.returncode == 2 and "has no attribute 'slow'" in bad.stderr


@needs_pth
@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a [x, x, x]\nb: [*a, *a, *a]\n"], ids=["recursive", "repeat"])
def test_yaml_aliases_are_refused_at_start_up(pkg, text):
    (pkg / "cfg.yaml").write_text("packages:\n  allow: [agstart]\n" + text)
    marker = pkg / "ran"
    result = _python(pkg, f"open({str(marker)!r}, 'w').close()", AUTOGRAPH_CONFIG=str(pkg / "cfg.yaml"))
    assert result.returncode == 2 and "aliases are not allowed" in result.stderr
    assert not marker.exists() and "Traceback" not in result.stderr


@needs_pth
def test_empty_variables_are_unset_at_start_up(pkg):
    result = _python(pkg, "import agstart.check as c; print(c.report())", AUTOGRAPH_PACKAGES="agstart",
                     AUTOGRAPH_RECOMPILE_LIMIT="", AUTOGRAPH_COMPILE_THRESHOLD=" ", AUTOGRAPH_REPORT="",
                     AUTOGRAPH_BACKEND="", AUTOGRAPH_DUMP="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "wrapped=True"
