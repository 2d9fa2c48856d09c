"""Calls of torch's ``functools.cache``/``lru_cache`` functions on constant arguments.

torch memoizes pure helpers (``torch.overrides.get_default_nowrap_functions()``, backend and
dtype tables): each call with the same arguments hands back the one object it made first. Capture
calls the real wrapper (as eager would, so the cache is filled the same way) and holds the
result as that object read from outside, through a source that calls the wrapper again: the
guards check it still returns that object (with the same contents) on later calls. Only
functions of torch's own modules are called so: a user's cached function is user code whose
first call may have side effects.
"""
from __future__ import annotations

import functools
import types
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.breaks import Unsupported
from autograph.guards.sources import PinnedSource

_CACHE_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))


def _torch_cached(fn: Any) -> bool:
    wrapped = getattr(fn, "__wrapped__", None)
    return type(fn) is _CACHE_WRAPPER and isinstance(wrapped, types.FunctionType) \
        and (wrapped.__module__ or "").split(".")[0] == "torch"


def _cached_call(tx, fn, args, kwargs):
    if not _torch_cached(fn) or not all(v.is_constant() and not v.mutable for v in (*args, *kwargs.values())):
        return NotImplemented
    real_args = [a.as_python_constant() for a in args]
    real_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
    try:
        result = fn(*real_args, **real_kwargs)
    except Exception as exc:  # noqa: BLE001 - raised again by the call at run time
        raise Unsupported(f"{fn.__wrapped__.__qualname__}() raised {type(exc).__name__}", generic=True,
                          kind="python-exception") from None
    getter = fn if not real_args and not real_kwargs else functools.partial(fn, *real_args, **real_kwargs)
    what = f"{fn.__wrapped__.__module__}.{fn.__wrapped__.__qualname__}(...)"
    return tx.wrap(result, PinnedSource(getter, what))


def install() -> None:
    registry.add_opaque_call_rule(_cached_call)
