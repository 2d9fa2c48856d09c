"""``python -m autograph`` / ``autograph``: run a script with autograph, check settings.

    autograph run [options] (script.py | -m module) [args...]
    autograph report FILE.json [--all]
    autograph config check [FILE]
    autograph config schema

``run`` behaves like ``python script.py`` / ``python -m module``: same ``sys.argv``,
``__name__ == "__main__"``, ``sys.path[0]``, exit status and traceback (autograph's own
frames are cut). Before the script starts it validates the settings (a bad setting
stops everything with status 2), installs the import hook, and exports the effective
settings to the environment so child processes compile the same packages.
"""
from __future__ import annotations

import builtins
import importlib.machinery
import io
import json
import os
import runpy
import sys
import types
import zipfile
from typing import Any, NoReturn, Sequence

USAGE = """\
usage: autograph run [options] (script.py | -m module) [args...]
       autograph report FILE.json [--all | --html DIR]
       autograph config check [FILE]
       autograph config schema
       autograph --version

run            run a Python script or module with the selected packages compiled
report         print a saved run report again: the summary, every table (--all), or HTML pages (--html DIR)
config check   validate a settings file (default: AUTOGRAPH_CONFIG or ./autograph.yaml)
               together with the AUTOGRAPH_* environment, and print the effective settings
config schema  print the JSON Schema of the settings file

run options (each sets the settings key named, over the file and the environment):
  --config FILE          the settings file (YAML)
  --packages RULES       packages.allow, comma-separated rules (added to the file's)
  --deny RULES           packages.deny, comma-separated rules (added to the file's)
  --backend NAME         backend: auto, eager, triton, inductor or module:function
  --threshold N          compile_threshold: capture a function on its N-th call
  --verify[=1|0]         verify: check compiled calls against the original function
  --log CHANNELS         log: comma-separated channels (guards,recompiles,graph_breaks,...)
  --report[=PATH]        report: print the run report at exit; PATH: also write it as JSON
  --report-style STYLE   report_style: summary, all or quiet
"""

CONFIG_USAGE = """\
usage: autograph config check [FILE]
       autograph config schema

check   validate FILE (default: AUTOGRAPH_CONFIG or ./autograph.yaml) with the AUTOGRAPH_*
        environment and print the effective settings (status 0), or each error (status 2)
schema  print the JSON Schema of the settings file
"""

REPORT_USAGE = """\
usage: autograph report FILE.json [--all | --html DIR]

Print a run report saved by `autograph run --report=FILE.json`: the summary (one row per
function, worst first), or every function's table with --all. --html DIR writes it as pages:
DIR/index.html lists the functions worst first, each function's page shows its source with
every line marked compiled, graph break (reason and hint inline), ran eagerly, or cold.
"""

EXIT_USAGE = 2  # like Python itself for bad command lines and unreadable scripts


class UsageError(Exception):
    """Bad command line; the message is printed with the usage."""


def _fail(message: str, status: int = EXIT_USAGE) -> NoReturn:
    sys.stderr.write(f"autograph: {message}\n")
    raise SystemExit(status)


# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------


def _run_options() -> dict[str, tuple[str, Any]]:
    """``--flag -> (key, value of the bare flag or UNSET)``: ``--config`` and every settings key's flag."""
    from autograph.settings import UNSET, cli_flags

    options = {flag: (key, var.flag_without_value) for flag, (key, var) in cli_flags().items()}
    options["--config"] = ("config", UNSET)
    return options


def _parse_run(argv: list[str]) -> tuple[dict[str, Any], str, str, list[str]]:
    """Split ``run`` arguments into (options, kind, target, script args); kind is 'path' or 'module'."""
    from autograph.settings import UNSET

    options: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-m":
            if i + 1 >= len(argv):
                raise UsageError("-m needs a module name")
            return options, "module", argv[i + 1], argv[i + 2:]
        if arg.startswith("-m") and len(arg) > 2:  # python -mpkg.mod
            return options, "module", arg[2:], argv[i + 1:]
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            raise SystemExit(0)
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-"):
            break
        name, eq, value = arg.partition("=")
        key, bare = _run_options().get(name, (None, UNSET))
        if key is None:
            raise UsageError(f"unknown option {arg!r} for run")
        if not eq and bare is not UNSET:
            options[key] = bare
        else:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name} needs a value")
                i += 1
                value = argv[i]
            options[key] = value
        i += 1
    if i >= len(argv):
        raise UsageError("run needs a script or -m module")
    return options, "path", argv[i], argv[i + 1:]


def _is_launcher_frame(frame: types.FrameType) -> bool:
    return frame.f_globals.get("__name__") in (__name__, "runpy")


def _exit_like_python(exc: BaseException) -> NoReturn:
    """Report an uncaught exception of the script the way the interpreter would (the user's
    frames only); Ctrl-C runs the exit handlers (the report) and ends with status 130."""
    from autograph.hook.startup import exit_by_sigint, report_uncaught, user_traceback

    interrupted = isinstance(exc, KeyboardInterrupt)
    exc = exc.with_traceback(user_traceback(exc.__traceback__, interrupted=interrupted, leading=_is_launcher_frame))
    report_uncaught(type(exc), exc, exc.__traceback__)
    if interrupted:
        exit_by_sigint()
    raise SystemExit(1)


def run(argv: list[str]) -> int:
    """``autograph run``: see the module docstring."""
    try:
        options, kind, target, script_args = _parse_run(argv)
    except UsageError as exc:
        sys.stderr.write(USAGE)
        _fail(str(exc))

    if kind == "path":
        if not os.path.exists(target):
            _fail(f"can't open file {os.path.abspath(target)!r}: [Errno 2] No such file or directory")
        if os.path.isdir(target) and not os.path.isfile(os.path.join(target, "__main__.py")):
            _fail(f"{target!r} is a directory without a __main__.py; give a script (run train.py) "
                  "or a module (run -m package.module)")
        sys.path[0] = os.path.dirname(os.path.abspath(target))
        sys.argv = [target, *script_args]
    else:
        sys.path[0] = os.getcwd()
        sys.argv = [target, *script_args]  # runpy replaces argv[0] with the module's file

    from autograph.errors import SettingsError
    from autograph.settings import export_env, load_settings

    cli = {key: value for key, value in options.items() if key != "config"}
    try:
        settings = load_settings(options.get("config"), cli=cli)
    except SettingsError as exc:
        _fail(f"invalid settings, nothing was run:\n{exc}")

    from autograph.hook.startup import (activate_logs, fail_run_on_verify_mismatch, print_report_at_exit, warn,
                                        warn_unmatched_rules_at_exit)
    from autograph.settings import start_warnings

    for message in start_warnings(settings, config_given=options.get("config") is not None):
        warn(message)
    os.environ.update(export_env(settings))
    from autograph.hook.install import install

    installation = install(settings=settings)
    activate_logs(settings)
    fail_run_on_verify_mismatch(settings)
    print_report_at_exit(settings)
    warn_unmatched_rules_at_exit(installation)

    try:
        if kind == "path":
            _run_script(target)
        else:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
    except SystemExit:
        raise
    except ImportError as exc:
        if kind == "module" and _is_runpy_lookup(exc):
            sys.stderr.write(f"{sys.executable}: {exc}\n")  # exactly what `python -m` prints
            raise SystemExit(1) from None
        _exit_like_python(exc)
    except BaseException as exc:  # noqa: BLE001 - re-reported exactly like the interpreter does
        _exit_like_python(exc)
    return 0


def _run_script(path: str) -> None:
    """Run a script file as ``__main__`` exactly like ``python path`` (argv[0] as typed, ``__file__`` absolute)."""
    absolute = os.path.abspath(path)
    if os.path.isdir(absolute) or zipfile.is_zipfile(absolute):
        runpy.run_path(absolute, run_name="__main__")  # a directory or zip with __main__.py
        return
    with io.open_code(absolute) as file:
        source = file.read()
    code = compile(source, absolute, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=absolute,
        __cached__=None,
        __loader__=importlib.machinery.SourceFileLoader("__main__", absolute),
        __spec__=None,
        __package__=None,
        __builtins__=builtins,
    )
    _keep_alive.append(sys.modules.get("__main__"))  # autograph's own __main__, still running
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


_keep_alive: list = []


def _is_runpy_lookup(exc: ImportError) -> bool:
    """True when runpy itself could not find the module (not an import inside it)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__") == "runpy"


# ---------------------------------------------------------------------------
# config
# ---------------------------------------------------------------------------


def report_command(argv: list[str]) -> int:
    """``autograph report r.json [--all]``: render a saved JSON report again."""
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(REPORT_USAGE)
        return 0
    show_all = "--all" in argv
    rest = [a for a in argv if a != "--all"]
    html_dir = None
    for i, arg in enumerate(rest):
        if arg == "--html" or arg.startswith("--html="):
            value = arg.partition("=")[2] if "=" in arg else (rest[i + 1] if i + 1 < len(rest) else "")
            if not value:
                raise UsageError("--html needs a directory")
            html_dir = value
            rest = rest[:i] + rest[i + (1 if "=" in arg else 2):]
            break
    unknown = [a for a in rest if a.startswith("-")]
    if unknown or len(rest) != 1:
        raise UsageError(f"unknown option {unknown[0]!r} for report" if unknown else "report needs one FILE.json")
    from autograph.explain.report import RunReport

    try:
        data = json.loads(open(rest[0], encoding="utf-8").read())
        rep = RunReport.from_dict(data)
    except OSError as exc:
        _fail(f"cannot read {rest[0]!r}: {exc.strerror or exc}")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        _fail(f"{rest[0]}: not a run report written by `autograph run --report=FILE.json` ({exc})")
    if html_dir is not None:
        from autograph.explain.html_report import load_kinds, write_html

        index = write_html(rep, html_dir, load_kinds(data))
        print(f"autograph: wrote {index} ({len(rep.functions)} function pages)")
        return 0
    print(str(rep) if show_all else rep.summary(f"autograph report {rest[0]} --all"))
    return 0


def config_check(argv: list[str]) -> int:
    """Validate settings (file + environment) and print the effective result as YAML."""
    import yaml

    from autograph.errors import SettingsError
    from autograph.settings import _config_path, env_variable_names, load_settings

    if len(argv) > 1:
        raise UsageError("config check takes at most one FILE")
    file = argv[0] if argv else None
    path = _config_path(file, os.environ)
    try:
        settings = load_settings(file)
    except SettingsError as exc:
        sys.stderr.write(f"{exc}\n")
        return EXIT_USAGE
    from autograph.settings import start_warnings

    for message in start_warnings(settings, config_given=file is not None):
        sys.stderr.write(f"autograph: warning: {message}\n")
    used_env = [name for name in dict.fromkeys(env_variable_names()) if name in os.environ]
    sources = [str(path) if path is not None else "no settings file (defaults)"]
    if used_env:
        sources.append("environment: " + ", ".join(used_env))
    print(f"# settings OK - from {'; '.join(sources)}")
    print(yaml.safe_dump(settings.model_dump(mode="json"), sort_keys=False, default_flow_style=False).rstrip())
    return 0


def config_schema(argv: list[str]) -> int:
    from autograph.settings import settings_schema

    if argv:
        raise UsageError("config schema takes no arguments")
    print(json.dumps(settings_schema(), indent=2))
    return 0


# ---------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------


# What each command imports (import name -> the package to install), checked before it starts
# so that a Python without them gets one sentence, not a ModuleNotFoundError traceback.
_NEEDS = {
    "run": {"torch": "torch", "pydantic": "pydantic", "yaml": "PyYAML", "wrapt": "wrapt", "bytecode": "bytecode"},
    "config": {"pydantic": "pydantic", "yaml": "PyYAML"},
    "report": {"pydantic": "pydantic"},
}


def _missing(command: str) -> list[str]:
    """Packages ``command`` needs that this Python cannot import (found without importing them)."""
    import importlib.util

    missing = []
    for module, package in _NEEDS.get(command, {}).items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(package)
    return missing


def _refuse_missing(packages: list[str]) -> int:
    python = sys.executable or "python"
    version = ".".join(map(str, sys.version_info[:3]))
    sys.stderr.write(
        f"autograph: this Python ({python}, {version}) cannot import {', '.join(packages)}, which autograph "
        "needs; nothing was run. Use the project's environment: `.venv/bin/python -m autograph ...` (or "
        "`source .venv/bin/activate` first; `scripts/setup` creates it), or install autograph into this "
        "Python: `python -m pip install -e .`\n")
    return EXIT_USAGE


def _quiet_broken_pipe() -> int:
    """The reader of our stdout went away (``autograph config schema | head``): stop without a
    traceback, as the Python documentation recommends (stdout pointed at devnull, status 1)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m autograph`` and the ``autograph`` console script."""
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    return status


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        (sys.stdout if args else sys.stderr).write(USAGE)
        return 0 if args else EXIT_USAGE
    if args[0] in ("-V", "--version"):
        from autograph import __version__

        print(f"autograph {__version__}")
        return 0
    command, rest = args[0], args[1:]
    if command == "config" and any(a in ("-h", "--help") for a in rest):
        sys.stdout.write(CONFIG_USAGE)
        return 0
    missing = _missing(command)
    if missing:
        return _refuse_missing(missing)
    try:
        if command == "run":
            return run(rest)
        if command == "report":
            return report_command(rest)
        if command == "config":
            sub = rest[0] if rest else ""
            if sub == "check":
                return config_check(rest[1:])
            if sub == "schema":
                return config_schema(rest[1:])
            raise UsageError("config needs 'check [FILE]' or 'schema'")
        raise UsageError(f"unknown command {command!r}")
    except UsageError as exc:
        sys.stderr.write(USAGE)
        sys.stderr.write(f"autograph: {exc}\n")
        return EXIT_USAGE
