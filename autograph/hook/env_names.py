"""The ``AUTOGRAPH_*`` variable names, as a static list the start-up ``.pth`` line can check for free.

Every interpreter that has an ``AUTOGRAPH_*`` variable runs the ``.pth`` line, and that includes
the ``python -c`` probes torch's inductor starts (its CPU ISA check) under a benchmark that set
only ``AUTOGRAPH_CACHE_DIR``. Deciding from this module whether the hook is asked for, or a name
is misspelt, keeps pydantic and the settings model out of those processes. The names, the
activating rule and the words that switch autograph off must match ``autograph.settings``'s
(which does not import this module: settings sits below hook); tests/hook/test_env_names.py
checks that they do.
"""
from __future__ import annotations

import os
from typing import Mapping

SWITCH = "AUTOGRAPH"  # AUTOGRAPH=0 turns the start-up hook off
CONFIG = "AUTOGRAPH_CONFIG"
ACTIVATING = ("AUTOGRAPH_PACKAGES", CONFIG)  # a non-empty value asks for the import hook at start-up
SETTINGS_VARIABLES = frozenset({  # every variable the settings read
    SWITCH,
    CONFIG,
    "AUTOGRAPH_PACKAGES",
    "AUTOGRAPH_DENY",
    "AUTOGRAPH_BACKEND",
    "AUTOGRAPH_RECOMPILE_LIMIT",
    "AUTOGRAPH_COMPILE_THRESHOLD",
    "AUTOGRAPH_DYNAMIC",
    "AUTOGRAPH_FULLGRAPH",
    "AUTOGRAPH_ON_ERROR",
    "AUTOGRAPH_MODE",
    "AUTOGRAPH_REPORT",
    "AUTOGRAPH_REPORT_STYLE",
    "AUTOGRAPH_LOG",
    "AUTOGRAPH_CACHE_DIR",
    "AUTOGRAPH_DUMP",
    "AUTOGRAPH_VERIFY",
    "AUTOGRAPH_VERIFY_CALLS",
})
# Variables named AUTOGRAPH_* that are not settings: the tools of this repository read them.
OTHER_VARIABLES = {"AUTOGRAPH_PYTHON": "scripts/setup: the Python that creates .venv"}
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def startup_requested(env: Mapping[str, str] | None = None) -> bool:
    """True when the environment asks for the import hook at interpreter start."""
    env = os.environ if env is None else env
    if env.get(SWITCH, "").strip().lower() in FALSE_WORDS:
        return False
    return any(env.get(name, "").strip() for name in ACTIVATING)


def unknown_names(env: Mapping[str, str] | None = None) -> list[str]:
    """The ``AUTOGRAPH_*`` names in ``env`` that autograph does not read (typos, sorted)."""
    env = os.environ if env is None else env
    return sorted(name for name in env if name.startswith("AUTOGRAPH_")
                  and name not in SETTINGS_VARIABLES and name not in OTHER_VARIABLES)


def startup_has_work(env: Mapping[str, str] | None = None) -> bool:
    """Whether the start-up hook must load the settings: the hook is asked for, or a name
    needs its warning. Otherwise the interpreter starts without importing anything of autograph's."""
    return startup_requested(env) or bool(unknown_names(env))
