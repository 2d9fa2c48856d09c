"""React to new cache entries: log them on the enabled channels and rewrite dumps.

``activate(settings)`` configures the log channels from ``settings.log`` and, when
a channel that describes entries is on or ``settings.dump`` names a directory,
subscribes :func:`on_new_entry` to the runtime.  Nothing is subscribed
otherwise, so the miss path pays nothing when explaining is off.

The subscription is ``autograph.runtime.shim.add_entry_listener``; ``deactivate()``
removes it.
"""
from __future__ import annotations

import logging
from typing import Any

from autograph.explain import logs, render
from autograph.settings import Settings

_ENTRY_CHANNELS = ("breaks", "guards", "graphs", "bytecode", "kernels")
_state: dict[str, Any] = {"dump": None, "restore": None}
log = logging.getLogger("autograph.explain")


def activate(settings: Settings | None = None) -> None:
    """Configure logs and dumps from ``settings`` (default: the process settings)."""
    if settings is None:
        from autograph.settings import current_settings

        settings = current_settings()
    logs.configure(settings=settings)
    _state["dump"] = settings.dump
    if _state["dump"] is not None or any(logs.enabled(ch) for ch in _ENTRY_CHANNELS):
        _subscribe()
    else:
        deactivate()


def deactivate() -> None:
    restore = _state.pop("restore", None)
    _state["restore"] = None
    if restore is not None:
        restore()


def _subscribe() -> None:
    if _state.get("restore") is not None:
        return
    from autograph.runtime import shim as shim_module

    add = getattr(shim_module, "add_entry_listener", None)
    remove = getattr(shim_module, "remove_entry_listener", None)
    if not callable(add):
        log.warning("autograph: this runtime cannot report new cache entries; entry logs and dumps are off")
        return
    add(on_new_entry)
    _state["restore"] = (lambda: remove(on_new_entry)) if callable(remove) else (lambda: None)


def on_new_entry(shim: Any, entry: Any) -> None:
    """Log a new cache entry on the enabled channels and rewrite its function's dump file."""
    try:
        _log_entry(shim, entry)
        if _state.get("dump") is not None:
            _dump(shim)
    except Exception:  # noqa: BLE001 - explaining must never break the program
        log.debug("autograph: explaining a new cache entry failed", exc_info=True)


def _log_entry(shim: Any, entry: Any) -> None:
    fn = shim.fn
    name, where = fn.__qualname__, render.where(fn.__code__)
    n = len(shim.entries)
    result = getattr(entry, "result", None)
    if logs.enabled("breaks"):
        for b in getattr(result, "breaks", ()) or ():
            logs.logger("breaks").info("graph break in %s at %s:%s: %s%s", name, render.short_file(b.filename),
                                       b.lineno, b.reason, f"\n    {b.source_line}" if b.source_line else "")
    if logs.enabled("guards"):
        words = render.guard_words(getattr(entry.guards, "guards", ()) or ())
        logs.logger("guards").info("guards of %s (%s) cache entry %d:\n%s", name, where, n,
                                   render.indent("\n".join(words) or "(none)"))
    if result is None:
        return
    if logs.enabled("bytecode") and getattr(result, "transformed_code", None) is not None:
        text, how = render.transformed_text(result)
        logs.logger("bytecode").info("transformed code of %s (%s) cache entry %d (%s):\n%s",
                                     name, where, n, how, render.indent(text))
    for g in getattr(result, "graphs", ()) or ():
        if logs.enabled("graphs"):
            logs.logger("graphs").info("graph %s of %s (%s), %d ops:\n%s", g.name, name, where, g.op_count,
                                       render.indent(render.graph_code(g.gm)))
        if logs.enabled("kernels"):
            for kname, source in render.kernels_of(g.compiled):
                logs.logger("kernels").info("kernel %s of %s (%s):\n%s", kname, g.name, name,
                                            render.indent(source))


def _dump(shim: Any) -> None:
    from autograph.explain import dump

    root = _root_of(shim)
    dump.dump(root, _state["dump"])


def _root_of(shim: Any) -> Any:
    """The shim whose dump file holds ``shim`` (a resume function lives in its parent's file)."""
    fn = shim.fn
    if not fn.__name__.startswith("__resume_at_"):
        return shim
    from autograph.explain.dump import _live_shims

    parent = fn.__qualname__.rpartition(".")[0]
    code = fn.__code__
    for other in _live_shims():
        o = other.fn
        if o.__qualname__ == parent and o.__code__.co_filename == code.co_filename and other.entries:
            return _root_of(other)
    return shim
