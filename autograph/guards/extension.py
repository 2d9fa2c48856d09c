"""The C extension ``autograph._native``: its plan constants, loading it, and the one switch
that says whether the C path is used.

``load()`` says whether the extension is built (and built from these sources); ``c_path()``
says whether it is *used*: every place that chooses between the C and the Python path (the
plans the shim stores, its dispatcher, the hit path of existing shims, the torch-call counter's
``in_guards``) asks ``c_path()``, and ``use_c_path(flag)`` flips all of them at once.
"""
from __future__ import annotations

import functools
import logging
from typing import Any, Callable

from autograph.guards.kinds import Op

log = logging.getLogger("autograph.runtime")

# node kinds of a plan (how a guarded value is reached); native/guard_eval.c exports its own
# values of the same names, and of the guard opcodes (``G_<name>`` for each ``kinds.Op``)
(N_POS, N_VARARGS, N_CONST, N_GLOBAL, N_GLOBAL_OR_BUILTIN, N_CELL, N_ATTR, N_ITEM, N_CALL, N_KWONLY, N_VARKW,
 N_APPLY, N_ITER_ITEMS, N_ITER_SEQUENCE) = range(14)
MAX_NODES = 1024
PLAN_CONSTANTS: dict[str, int] = {
    **{name: value for name, value in globals().items() if name.startswith("N_")},
    **{f"G_{op.name}": int(op) for op in Op},
    "MAX_NODES": MAX_NODES,
}
SHARED_CONSTANTS = tuple(PLAN_CONSTANTS)


def constant_mismatches(module: Any) -> list[str]:
    """The plan constants whose value in the C ``module`` differs from Python's (missing ones too)."""
    return [name for name, value in PLAN_CONSTANTS.items() if getattr(module, name, None) != value]


@functools.lru_cache(maxsize=None)
def load() -> Any:
    """The ``autograph._native`` module, or None (logged once) when it is not built."""
    try:
        from autograph import _native
    except ImportError as exc:
        log.info("autograph._native is not available (%s); guards run in Python "
                 "(reinstall with a C compiler present for the fast path)", exc)
        return None
    differing = constant_mismatches(_native)
    if differing:
        log.warning("autograph._native was built from other sources (plan constants differ: %s); guards "
                    "run in Python (rebuild with `python setup.py build_ext --inplace`)", ", ".join(differing))
        return None
    return _native


# ------------------------------------------------------------ the switch

_use_c = True  # on by default: the C path runs whenever the extension is built
_listeners: list[Callable[[], None]] = []


def c_path() -> Any:
    """The extension when the C path is in use, else None (not built, or switched off)."""
    return load() if _use_c else None


def use_c_path(flag: bool) -> None:
    """Use the C path (``True``) or the Python one (``False``) for guards and dispatch, in every
    shim, existing ones included (their plans are rebuilt). Tests and benchmarks flip it."""
    global _use_c
    if flag and load() is None:
        raise RuntimeError("autograph._native is not built (python setup.py build_ext --inplace)")
    _use_c = bool(flag)
    for listener in list(_listeners):
        listener()


def on_switch(listener: Callable[[], None]) -> None:
    """Call ``listener()`` after every ``use_c_path`` (the runtime re-reads ``c_path()``)."""
    _listeners.append(listener)
