"""A graph that switches torch's thread-local state puts it back when it raises.

``with torch.no_grad()`` / ``enable_grad()`` / ``set_grad_enabled(b)`` / ``autocast(...)``
blocks captured into a graph become state-switching nodes around their operations
(families/contexts.py). Eager Python leaves such a block through its ``__exit__`` also when an
operation inside raises (an index out of range only the run can see); a graph run node by node
(the eager backend runs the FX code itself) would stop between the switches and leave grad mode
or autocast changed for the caller; so may a backend that falls back to the FX code or a user's
backend. Those graphs record the state before each call and restore it when the call raises
(for a backend whose compiled graph switches nothing, that restores what is already there).
An inference-mode switch is an object whose release restores the state at its entry; when the
graph raises, those objects are released by the traceback's frames in no particular order (an
outer one before an inner one leaves inference mode on; one released after the grad mode was
put back sets it again), so they are exited first, innermost first, as nested ``with`` blocks do.
Other switches (``sdpa_kernel``'s flags) name in ``node.meta["state_restore"]`` how to read
their state before the call and put it back.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

_enter_autocast = torch.amp.autocast_mode._enter_autocast
_enter_inference_mode = torch.autograd.grad_mode._enter_inference_mode


def _autocast_level() -> int:
    level = torch.autocast_increment_nesting() - 1
    torch.autocast_decrement_nesting()
    return level


def _exit_inference_modes(tb: Any) -> None:
    """Exit the inference-mode switches still held by the raising frames, innermost first."""
    held: list[Any] = []
    seen: set[int] = set()
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            if isinstance(value, torch._C._InferenceMode) and id(value) not in seen:
                seen.add(id(value))
                held.append(value)
        tb = tb.tb_next
    for switch in reversed(held):  # (entered in frame order, then in the order of the frame's locals)
        switch.__exit__(None, None, None)


def restore_state_on_error(gm: Any, compiled: Callable) -> Callable:
    """``compiled`` wrapped to restore grad mode and autocast on errors (``__wrapped__`` keeps
    the backend's callable for inspection); unchanged when the graph switches no state."""
    state_nodes = [n for n in gm.graph.nodes if n.meta.get("state")]
    inference = any(n.target is _enter_inference_mode for n in gm.graph.nodes)
    if not state_nodes and not inference:
        return compiled
    # other switches name how to read and put back what they change: ``(read, put_back)``
    others = list(dict.fromkeys(n.meta["state_restore"] for n in state_nodes if "state_restore" in n.meta))
    devices = sorted({str(n.args[0]) for n in state_nodes if n.target is _enter_autocast and n.args})

    def run(*args: Any) -> Any:
        grad = torch.is_grad_enabled()
        autocast = [(d, torch.is_autocast_enabled(d), torch.get_autocast_dtype(d)) for d in devices]
        if devices:
            level, cache = _autocast_level(), torch.is_autocast_cache_enabled()
        saved = [(put_back, read()) for read, put_back in others]
        try:
            return compiled(*args)
        except BaseException as exc:
            if inference:
                _exit_inference_modes(exc.__traceback__)
            for put_back, value in saved:
                put_back(value)
            torch._C._set_grad_enabled(grad)
            if devices:
                while _autocast_level() > level:
                    if torch.autocast_decrement_nesting() == 0:
                        torch.clear_autocast_cache()
                for device, enabled, dtype in autocast:
                    torch.set_autocast_enabled(device, enabled)
                    torch.set_autocast_dtype(device, dtype)
                torch.set_autocast_cache_enabled(cache)
            raise

    run.__wrapped__ = compiled  # type: ignore[attr-defined]
    return run
