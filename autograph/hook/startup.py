"""Interpreter-start entry point, run by the ``autograph-startup.pth`` file.

The ``.pth`` line only imports this module when an ``AUTOGRAPH_*`` variable is present, so
ordinary interpreters pay nothing. The settings are loaded (torch-free, but pydantic) only when
:mod:`autograph.hook.env_names` finds an activating variable (``AUTOGRAPH_PACKAGES``,
``AUTOGRAPH_CONFIG``) or a misspelt one, which gets a warning: a child process that inherited
only, say, ``AUTOGRAPH_CACHE_DIR`` (inductor's ``python -c`` probes) stops there. The import
hook is installed when the settings select something and autograph is not off. This is what makes
``AUTOGRAPH_PACKAGES=mymodels python train.py`` and ``spawn`` children work with
no code change.

Bad settings stop the interpreter with exit status 2 and the error message, the same
rule as ``python -m autograph run``: nothing runs with settings the user did not mean.
"""
from __future__ import annotations

import atexit
import importlib
import os
import re
import signal
import sys
import threading
import traceback
import types
import zipfile
from typing import TYPE_CHECKING, Any, Callable, NoReturn

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


# ---------------------------------------------------------------- uncaught exceptions


def user_traceback(tb: types.TracebackType | None, *, interrupted: bool = False,
                   leading: Callable[[types.FrameType], bool] | None = None) -> types.TracebackType | None:
    """The traceback the user would see without autograph.

    Leading frames for which ``leading`` is true (the launcher's own) go. autograph's frames
    between two user frames (the wrapper and shim around a compiled function) go too, unless the
    error was raised inside autograph itself: then every frame stays, for the bug report. A
    KeyboardInterrupt (``interrupted``) is the user's wherever it landed: autograph's frames go.
    """
    while tb is not None and leading is not None and leading(tb.tb_frame):
        tb = tb.tb_next
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    kept = [f for f in frames if not is_autograph_frame(f.tb_frame)]
    if not kept or (is_autograph_frame(frames[-1].tb_frame) and not interrupted):
        return frames[0] if frames else None
    for outer, inner in zip(kept, kept[1:]):
        outer.tb_next = inner
    kept[-1].tb_next = None
    return kept[0]


def is_autograph_frame(frame: types.FrameType) -> bool:
    name = frame.f_globals.get("__name__") or ""
    return name.startswith("autograph.") and not name.startswith("autograph.testing")


TRANSFORMED_PREFIX = "<autograph transformed "
_RESUME_NAME = re.compile(r"__resume_at_\d+_\d+")


def user_stack(stack: traceback.StackSummary) -> traceback.StackSummary:
    """The printed frames as the user wrote the code: autograph's transformed-code frames (they
    stand for a call of your function) left out, and the frames of code after a graph break
    (``__resume_at_70_2``) named after your function, so the traceback reads as without autograph."""
    frames = list(stack)
    owner: str | None = None
    out = []
    for i, frame in enumerate(frames):
        if frame.filename.startswith(TRANSFORMED_PREFIX) and frame.filename.endswith(">"):
            qualname = frame.filename[len(TRANSFORMED_PREFIX):-1].split(".__resume_at_")[0]
            owner = qualname.rpartition(".")[2] or owner
            if i < len(frames) - 1:
                continue  # a later frame shows where in your code it went on
        elif _RESUME_NAME.fullmatch(frame.name or "") and owner:
            frame = traceback.FrameSummary(frame.filename, frame.lineno, owner, line=frame.line)
        else:
            owner = None
        out.append(frame)
    return traceback.StackSummary.from_list(out)


def print_user_exception(kind: type[BaseException], value: BaseException, tb: types.TracebackType | None) -> None:
    """``sys.__excepthook__``'s output, with :func:`user_stack` applied to every traceback in the chain."""
    te = traceback.TracebackException(kind, value, tb, compact=True)
    seen = set()
    todo = [te]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.stack = user_stack(current.stack)
        todo += [e for e in (current.__cause__, current.__context__) if e is not None]
        todo += list(getattr(current, "exceptions", None) or ())
    sys.stderr.write("".join(te.format()))
    sys.stderr.flush()


def report_uncaught(kind: type[BaseException], value: BaseException, tb: types.TracebackType | None) -> None:
    """Print an uncaught exception: the user's own ``sys.excepthook`` if they set one, else ours."""
    if sys.excepthook is not sys.__excepthook__ and getattr(sys.excepthook, "__module__", None) != __name__:
        sys.excepthook(kind, value, tb)
        return
    try:
        print_user_exception(kind, value, tb)
    except Exception:  # noqa: BLE001 - never hide the user's error behind ours
        sys.__excepthook__(kind, value, tb)


def exit_by_sigint() -> NoReturn:
    """End the process as an uncaught Ctrl-C does (status 130 for the shell), after the exit
    handlers (the run report) ran: CPython's own path loses the status when they run code."""
    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
    os._exit(130)  # a platform where the signal did not end us


_hook_installed = False


def install_excepthook() -> None:
    """Uncaught exceptions of a program run with ``AUTOGRAPH_PACKAGES=...`` look as under the
    launcher: the user's frames only; Ctrl-C keeps the report and exits 130."""
    global _hook_installed
    if _hook_installed:
        return
    _hook_installed = True
    previous = sys.excepthook

    def excepthook(kind: type[BaseException], value: BaseException, tb: types.TracebackType | None) -> None:
        interrupted = issubclass(kind, KeyboardInterrupt)
        try:
            tb = user_traceback(tb, interrupted=interrupted)
        except Exception:  # noqa: BLE001 - never hide the user's error behind ours
            pass
        if previous is sys.__excepthook__:
            try:
                print_user_exception(kind, value, tb)
            except Exception:  # noqa: BLE001 - never hide the user's error behind ours
                previous(kind, value, tb)
        else:
            previous(kind, value.with_traceback(tb) if value is not None else value, tb)
        if interrupted and threading.current_thread() is threading.main_thread():
            exit_by_sigint()

    sys.excepthook = excepthook


def warn(message: str) -> None:
    sys.stderr.write(f"autograph: warning: {message}\n")
    sys.stderr.flush()


def warn_unmatched_rules_at_exit(installation: Any) -> None:
    """At exit, name each allow rule that selected no imported module (a typo compiles nothing,
    silently); the main process only, not its ``multiprocessing`` workers."""

    def check() -> None:
        mp = sys.modules.get("multiprocessing")
        if mp is not None and mp.parent_process() is not None:
            return
        try:
            unmatched = installation.unmatched_rules()
        except Exception:  # noqa: BLE001 - a diagnostic must never change the exit
            return
        for rule in unmatched:
            warn(f"the rule {rule!r} (packages.allow / AUTOGRAPH_PACKAGES) matched no imported module, so "
                 "nothing it names was compiled. Check the spelling against the module names your program "
                 "imports (`python -m autograph config check` prints the rules).")

    atexit.register(check)


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
    from autograph.hook import env_names

    if _activated or _launcher_starting():
        return
    _activated = True
    if not env_names.startup_has_work():  # only known variables that ask for nothing: no settings to load
        return
    from autograph.errors import SettingsError
    from autograph.settings import load_settings, start_warnings, startup_requested, unknown_variables

    if not startup_requested():  # only other AUTOGRAPH_* variables: a typo of the activating ones?
        for message in unknown_variables():
            warn(message)
        return
    try:
        settings = load_settings(check_backend=False)
        if settings.mode != "off" and settings.packages.allow:
            check_backend_as_the_launcher_does(settings.backend)
    except SettingsError as exc:
        _refuse(f"invalid settings, nothing was run:\n{exc}")
    except Exception as exc:  # noqa: BLE001 - never a traceback from site.py, never a half-started run
        _refuse(f"could not load the settings ({type(exc).__name__}: {exc}); nothing was run. Unset "
                "AUTOGRAPH_PACKAGES/AUTOGRAPH_CONFIG to run without autograph, and please report this")
    for message in start_warnings(settings):
        warn(message)
    if settings.mode == "off" or not settings.packages.allow:
        return
    from autograph.hook.install import install

    installation = install(settings=settings)
    activate_logs(settings)
    fail_run_on_verify_mismatch(settings)
    print_report_at_exit(settings)
    install_excepthook()
    warn_unmatched_rules_at_exit(installation)
