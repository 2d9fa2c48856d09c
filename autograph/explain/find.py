"""Find the runtime shim behind whatever the user holds.

Users hold many shapes of "a compiled function": the ``Shim`` that
``autograph.compile`` returns, a bound method of it, a compiled module view, a
function instrumented by the import hook (a ``wrapt`` wrapper), an original
function whose shim lives in its ``__dict__``, or a module whose ``forward`` was
instrumented.  ``find_shim`` accepts all of them.
"""
from __future__ import annotations

import sys
import types
from typing import Any

_SHIM_ATTR = "__autograph_shim__"


def is_shim(obj: Any) -> bool:
    """True for a runtime shim (``Shim``, ``PyShim``...): duck-typed, imports nothing."""
    cls = type(obj)
    return (hasattr(obj, "entries") and isinstance(getattr(obj, "fn", None), types.FunctionType)
            and any(k.__module__ == "autograph.runtime.shim" for k in cls.__mro__))


def find_shim(obj: Any, _depth: int = 0) -> Any | None:
    """The shim compiling ``obj``, or None when autograph does not compile it."""
    if obj is None or _depth > 6:
        return None
    if is_shim(obj):
        return obj
    if isinstance(obj, types.MethodType):
        return find_shim(obj.__func__, _depth + 1)
    try:
        view_shim = getattr(type(obj), "_autograph_shim", None)
    except Exception:  # noqa: BLE001
        view_shim = None
    if view_shim is not None:
        return find_shim(view_shim, _depth + 1)
    # import-hook wrappers (wrapt): the wrapper is a bound method of the shim
    for attr in ("_self_wrapper", "_self_autograph_original", "_self_parent"):
        try:
            inner = object.__getattribute__(obj, attr)
        except Exception:  # noqa: BLE001
            continue
        found = find_shim(inner, _depth + 1)
        if found is not None:
            return found
    if isinstance(obj, types.FunctionType):
        return obj.__dict__.get(_SHIM_ATTR)
    torch = sys.modules.get("torch")  # no module exists before torch is imported: never import it here
    if torch is not None and isinstance(obj, torch.nn.Module):
        return find_shim(getattr(obj, "forward", None), _depth + 1)
    return None


def original_function(obj: Any) -> types.FunctionType | None:
    """The plain Python function behind ``obj`` (for naming it when it is not compiled)."""
    for _ in range(6):
        if isinstance(obj, types.FunctionType):
            return obj
        if isinstance(obj, types.MethodType):
            obj = obj.__func__
            continue
        nxt = getattr(obj, "__wrapped__", None)
        torch = sys.modules.get("torch")  # no module exists before torch is imported: never import it here
        if nxt is None and torch is not None and isinstance(obj, torch.nn.Module):
            nxt = type(obj).forward
        if nxt is None:
            return None
        obj = nxt
    return None
