"""Interpreter-start entry point, run by the ``autograph-startup.pth`` file.

The ``.pth`` line only imports this module when ``AUTOGRAPH_PACKAGES`` or
``AUTOGRAPH_CONFIG`` is present, so ordinary interpreters pay nothing. Here the
settings are loaded (torch-free), and the import hook installed when they select
something and autograph is not off. This is what makes
``AUTOGRAPH_PACKAGES=mymodels python train.py`` and ``spawn`` children work with
no code change.

Bad settings stop the interpreter with exit status 2 and the error message, the same
rule as ``python -m autograph run``: nothing runs with settings the user did not mean.
"""
from __future__ import annotations

import atexit
import importlib
import os
import sys
import zipfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograph.settings import Settings

_report_settings: Settings | None = None


def print_report_at_exit(settings: Settings) -> None:
    """Print (and/or write) the run report when the process exits, if ``settings.report`` asks.

    Registered once per process; a later call only changes the settings used. Worker
    processes of ``multiprocessing`` never print one.
    """
    global _report_settings
    first = _report_settings is None
    _report_settings = settings
    if settings.report:  # count torch calls inside/outside graphs for the report (report mode only)
        from autograph.explain import torch_calls

        torch_calls.start()
    if first:
        atexit.register(_report_now)


_strict_registered = False


def fail_run_on_verify_mismatch(settings: Settings) -> None:
    """``verify: strict``: a run in which verify mode found a mismatch exits with status 1 (for CI).

    Registered before the report, so it runs after it (``atexit`` runs the last registered
    first) and the report still prints."""
    global _strict_registered
    if settings.verify == "strict" and not _strict_registered:
        _strict_registered = True
        atexit.register(_exit_if_mismatched)


def _exit_if_mismatched() -> None:
    from autograph.runtime.stats import all_stats

    mismatches = [(st.qualname, m) for st in all_stats() for m in st.verify_mismatches]
    if not mismatches:
        return
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        return
    sys.stderr.write(f"autograph verify (strict): {len(mismatches)} mismatch(es) between compiled and original "
                     f"calls, first: {mismatches[0][0]}: {mismatches[0][1]}; exit status 1\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing more to say
            pass
    os._exit(1)  # atexit handlers cannot set the exit status otherwise


def _report_now() -> None:
    settings = _report_settings
    if settings is None or not settings.report:
        return
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        return
    print_report(settings)


def print_report(settings: Settings) -> None:
    """The one call into the report room; prints nothing until ``autograph.explain.report`` exists."""
    try:
        module = importlib.import_module("autograph.explain.report")
    except ModuleNotFoundError as exc:
        if exc.name == "autograph.explain.report":
            return
        raise
    report = getattr(module, "print_report", None)
    if report is not None:
        report(settings)


def activate_logs(settings: Settings) -> None:
    """Switch on the log channels and dumps ``settings`` asks for (the explain room does the work)."""
    if not settings.log and settings.dump is None:
        return
    try:
        events = importlib.import_module("autograph.explain.events")
    except ModuleNotFoundError as exc:
        if exc.name == "autograph.explain.events":
            return
        raise
    events.activate(settings)


_activated = False


def _refuse(message: str) -> None:
    sys.stderr.write(f"autograph: {message}\n")
    sys.stderr.flush()
    os._exit(2)  # SystemExit inside site's .pth processing would be a fatal error


def _first_path_entry() -> str | None:
    """The directory Python will put first on ``sys.path`` for this run (not there yet while
    ``.pth`` files run): the script's directory, or the current one for ``-m``/``-c``/stdin."""
    if sys.flags.safe_path:
        return None
    argv = getattr(sys, "argv", None) or [""]
    first = argv[0]
    if first in ("", "-", "-c", "-m"):
        return os.getcwd()
    path = os.path.abspath(first)
    return path if os.path.isdir(path) or zipfile.is_zipfile(path) else os.path.dirname(path)


def check_backend_as_the_launcher_does(backend: str) -> None:
    """Import a ``module:function`` backend now, with the script's directory on ``sys.path`` as
    ``python -m autograph run`` has it; raises :class:`SettingsError` like the launcher."""
    from autograph.settings import check_backend_importable

    entry = _first_path_entry()
    added = entry is not None and entry not in sys.path
    if added:
        sys.path.insert(0, entry)
    try:
        check_backend_importable(backend)
    finally:
        if added and entry in sys.path:
            sys.path.remove(entry)


def _launcher_starting() -> bool:
    """Whether this interpreter runs autograph's own command line (``python -m autograph``, the
    ``autograph`` console script): it validates the settings with the script's directory on
    ``sys.path``, installs the hook and exports the settings itself."""
    orig = list(getattr(sys, "orig_argv", ()))
    i = 1
    while i < len(orig):
        arg = orig[i]
        if arg == "-m":
            return i + 1 < len(orig) and orig[i + 1] == "autograph"
        if arg.startswith("-m"):
            return arg[2:] == "autograph"
        if not arg.startswith("-") or arg in ("-c", "-"):
            break
        i += 2 if arg in ("-X", "-W", "--check-hash-based-pycs") else 1
    argv = getattr(sys, "argv", None) or [""]
    return os.path.basename(argv[0]) in ("autograph", "autograph.exe")


def activate() -> None:
    """Install the import hook from the environment's settings (called by the ``.pth`` line).

    Once per process (a site directory reachable twice, e.g. a venv's ``lib64`` link to
    ``lib``, runs the ``.pth`` line twice). Settings are validated exactly as the launcher
    does, a ``module:function`` backend included; bad settings (or a failure while loading
    them) stop the interpreter with status 2 before the script runs.
    """
    global _activated
    from autograph.errors import SettingsError
    from autograph.settings import load_settings, startup_requested

    if _activated or not startup_requested() or _launcher_starting():
        return
    _activated = True
    try:
        settings = load_settings(check_backend=False)
        if settings.mode != "off" and settings.packages.allow:
            check_backend_as_the_launcher_does(settings.backend)
    except SettingsError as exc:
        _refuse(f"invalid settings, nothing was run:\n{exc}")
    except Exception as exc:  # noqa: BLE001 - never a traceback from site.py, never a half-started run
        _refuse(f"could not load the settings ({type(exc).__name__}: {exc}); nothing was run. Unset "
                "AUTOGRAPH_PACKAGES/AUTOGRAPH_CONFIG to run without autograph, and please report this")
    if settings.mode == "off" or not settings.packages.allow:
        return
    from autograph.hook.install import install

    install(settings=settings)
    activate_logs(settings)
    fail_run_on_verify_mismatch(settings)
    print_report_at_exit(settings)
