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


def activate() -> None:
    """Install the import hook from the environment's settings (called by the ``.pth`` line)."""
    from autograph.errors import SettingsError
    from autograph.settings import load_settings, startup_requested

    if not startup_requested():
        return
    try:
        settings = load_settings(check_backend=False)
    except SettingsError as exc:
        sys.stderr.write(f"autograph: invalid settings, nothing was run:\n{exc}\n")
        sys.stderr.flush()
        os._exit(2)  # SystemExit inside site's .pth processing would be a fatal error
    if settings.mode == "off" or not settings.packages.allow:
        return
    from autograph.hook.install import install

    install(settings=settings)
    activate_logs(settings)
    print_report_at_exit(settings)
