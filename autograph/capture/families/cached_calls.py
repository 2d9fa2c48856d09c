"""Calls of library ``functools.cache``/``lru_cache`` functions on constant arguments.

torch and other libraries memoize pure helpers (``torch.overrides.get_default_nowrap_functions()``,
backend and dtype tables, einops's parsed patterns): each call with the same arguments hands back
the one object it made first. Capture calls the real wrapper (as eager would, so the cache is
filled the same way) and holds the result as that object read from outside, through a source
that calls the wrapper again: the guards check it still returns that object (with the same
contents) on later calls, making the one cache lookup per call that plain Python makes. Only
functions of library code (torch, the standard library, installed packages) are called so: a
user's cached function is user code whose first call may have side effects.
"""
from __future__ import annotations

import functools
import types
from typing import Any

from autograph.capture.core import registry
from autograph.capture.core.breaks import Unsupported
from autograph.guards.sources import PinnedSource

_CACHE_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))


def _library_cached(fn: Any) -> bool:
    from autograph.capture.core.library_files import is_library_file
    wrapped = getattr(fn, "__wrapped__", None)
    return type(fn) is _CACHE_WRAPPER and isinstance(wrapped, types.FunctionType) and (
        (wrapped.__module__ or "").split(".")[0] == "torch" or is_library_file(wrapped.__code__.co_filename))


_NO_VALUE = object()


def _key_part(value) -> tuple[Any, Any]:
    """``(real object, source to guard by identity or None)`` for an argument as the cache's key
    sees it: a constant, or an object from outside whose hash and equality are its identity (a
    recipe an earlier cached call returned). ``(_NO_VALUE, None)`` for anything else."""
    if value.is_constant() and not value.mutable:
        return value.as_python_constant(), None
    if value.source is None or value.is_tensor():
        return _NO_VALUE, None
    try:
        real = value.real_value()
    except Unsupported:
        return _NO_VALUE, None
    kind = type(real)
    if kind.__hash__ is not object.__hash__ or kind.__eq__ is not object.__eq__:
        return _NO_VALUE, None
    return real, value.source


def _cached_call(tx, fn, args, kwargs):
    if not _library_cached(fn):
        return NotImplemented
    parts = [_key_part(a) for a in args]
    named = {k: _key_part(v) for k, v in kwargs.items()}
    if any(real is _NO_VALUE for real, _ in (*parts, *named.values())):
        return NotImplemented
    for real, source in (*parts, *named.values()):
        if source is not None:  # the cache's key holds this very object
            tx.guards.id_(source, real)
    real_args = [real for real, _ in parts]
    real_kwargs = {k: real for k, (real, _) in named.items()}
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
