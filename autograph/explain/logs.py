"""Log channels: stdlib ``logging`` loggers under ``autograph.*``, switched one by one.

Channels (``settings.log`` / ``AUTOGRAPH_LOG``, read by ``autograph.settings`` only):

=============== ======================= ==============================================
channel          logger                  what it says
=============== ======================= ==============================================
graph_breaks     ``autograph.breaks``     each graph break: reason, file:line, source line
recompiles       ``autograph.recompiles`` why a new entry was needed (the failing guard)
guards           ``autograph.guards``     the guards of each new cache entry, in words
graph, graph_code ``autograph.graphs``    each captured FX graph's code
bytecode         ``autograph.bytecode``   the transformed code (generated Python)
backend          ``autograph.kernels``    kernel sources the backend generated
hook, perf       ``autograph.hook`` / ``autograph.perf``
verify           ``autograph.verify``     each mismatch verify mode finds, in full
=============== ======================= ==============================================

The issue's short names ``breaks``, ``graphs`` and ``kernels`` are accepted too.
An enabled channel gets a stderr handler (``[autograph.breaks] ...``) and level
DEBUG; a disabled one is left to the application's own logging configuration.
"""
from __future__ import annotations

import logging
import sys
from typing import Any, Iterable

from autograph.settings import Settings

CHANNEL_LOGGERS: dict[str, str] = {
    "graph_breaks": "autograph.breaks", "breaks": "autograph.breaks",
    "recompiles": "autograph.recompiles",
    "guards": "autograph.guards",
    "graph": "autograph.graphs", "graph_code": "autograph.graphs", "graphs": "autograph.graphs",
    "bytecode": "autograph.bytecode",
    "backend": "autograph.kernels", "kernels": "autograph.kernels",
    "hook": "autograph.hook",
    "perf": "autograph.perf",
    "verify": "autograph.verify",
}
ALL_LOGGERS = tuple(dict.fromkeys(CHANNEL_LOGGERS.values()))
_HANDLER_MARK = "_autograph_channel_handler"


def logger(channel: str) -> logging.Logger:
    """The logger of ``channel`` (``"breaks"`` or ``"graph_breaks"`` -> ``autograph.breaks``)."""
    return logging.getLogger(CHANNEL_LOGGERS.get(channel, f"autograph.{channel}"))


def enabled(channel: str) -> bool:
    """True when ``channel``'s logger would emit an INFO record (cheap: no formatting)."""
    return logger(channel).isEnabledFor(logging.INFO)


def loggers_for(channels: Iterable[str]) -> list[str]:
    """Logger names of ``channels`` ('all' = every channel); unknown names raise ``ValueError``."""
    names: list[str] = []
    for ch in channels:
        ch = ch.strip()
        if not ch:
            continue
        if ch == "all":
            names += ALL_LOGGERS
        elif ch in CHANNEL_LOGGERS:
            names.append(CHANNEL_LOGGERS[ch])
        else:
            raise ValueError(f"unknown log channel {ch!r}; known: all, {', '.join(sorted(CHANNEL_LOGGERS))}")
    return list(dict.fromkeys(names))


def configure(channels: Iterable[str] | None = None, *, settings: Settings | None = None, stream: Any = None) -> list[str]:
    """Switch the channels on (and every other autograph channel off); return the enabled loggers.

    ``channels`` defaults to ``settings.log`` (``settings`` defaults to the process settings).
    """
    if channels is None:
        if settings is None:
            from autograph.settings import current_settings

            settings = current_settings()
        channels = settings.log
    wanted = loggers_for(channels)
    for name in ALL_LOGGERS:
        log = logging.getLogger(name)
        for h in [h for h in log.handlers if getattr(h, _HANDLER_MARK, False)]:
            log.removeHandler(h)
        if name in wanted:
            handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
            handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
            setattr(handler, _HANDLER_MARK, True)
            log.addHandler(handler)
            log.setLevel(logging.DEBUG)
            log.propagate = False
        elif getattr(log, "_autograph_configured", False):
            log.setLevel(logging.NOTSET)
            log.propagate = True
        log._autograph_configured = name in wanted  # type: ignore[attr-defined]
    return wanted
