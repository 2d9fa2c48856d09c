"""Automatic dynamic: which dimensions the next capture of a function makes symbolic.

``dynamic: auto`` (default) captures statically first.  When a call misses (for
any reason: a size, a list's length, a constant), every tensor whose sizes alone
differ in this call from those its newest guard recorded (same class, dtype, device,
requires_grad, rank; strides may differ as sizes do) has the dimensions whose
size changed made symbolic in the new capture, and they stay so for later
captures of the same code ("once dynamic, always dynamic", as in Dynamo).
``static`` never does this; ``always`` makes every dimension symbolic from the
first capture.  ``autograph.mark_dynamic``/``mark_static`` on a tensor are
honoured by ``autograph.capture.core.shapes`` in every mode.

Python scalars follow the same rule: when a call misses because an ``int``, a
``float`` or a NumPy integer the capture read (an argument, an attribute, an item) changed value, that
source becomes a graph input in the new capture instead of a constant (an ``int``
symbolic like a size, a ``float`` a symbolic Python float: ``autograph.capture.core.shapes``
and ``autograph.capture.families.scalars``). Code that branches on it or needs a real
value specialises it again, with a guard on what it relied on.

If a symbolic capture fails, the function is captured statically instead:
dynamic shapes can only ever save recompiles, never lose a compiled entry.
"""
from __future__ import annotations

import inspect
import logging
import threading
import types
from typing import Any, Callable

from autograph.settings import Settings

log = logging.getLogger("autograph.recompiles")

_lock = threading.Lock()


def _new_map():
    from autograph.runtime.cache import IdentityWeakMap

    return IdentityWeakMap()


_dims_by_code = _new_map()  # code object -> {source expression: dimensions made dynamic so far}


def _state(shim: Any) -> dict:
    """Per code object: source expression -> dimensions made dynamic so far."""
    return _dims_by_code.setdefault(shim.state.code, dict)


_FAILED = "<symbolic capture failed>"  # key in a code's dims: capture it statically from now on
_SCALARS = "<scalars>"                  # key in a code's dims: source expressions of dynamic int/float values
_STRIDES = "<strides>"                  # key in a code's dims: {source expression: dimensions with dynamic strides}


def reset() -> None:
    """Forget every automatic-dynamic decision (``autograph.reset()``)."""
    _dims_by_code.clear()


def changed_dims(guard: Any, fn: types.FunctionType, args: tuple, kwargs: dict) -> set[int]:
    """The dimensions whose size alone made TENSOR_MATCH ``guard`` fail for this call (empty: not a size change)."""
    from autograph.guards.model import TENSOR_MATCH
    from autograph.guards.sources import is_module_state

    if guard is None or guard.kind is not TENSOR_MATCH or is_module_state(guard.source):
        return set()  # a module's parameters and buffers keep static sizes (another structure)
    value = resolve(guard.source, fn, args, kwargs)
    import torch

    if not isinstance(value, torch.Tensor):
        return set()
    f = guard.expected
    if (type(value) is not f.cls or value.dtype != f.dtype or value.device != f.device
            or bool(value.requires_grad) != f.requires_grad or value.dim() != len(f.sizes)
            or torch._C._dispatch_keys(value) != f.dispatch_keys):
        return set()
    return {i for i, (now, then) in enumerate(zip(value.size(), f.sizes)) if then is not None and now != then}


def changed_strides(guard: Any, fn: types.FunctionType, args: tuple, kwargs: dict) -> set[int]:
    """The dimensions whose stride alone changed since TENSOR_MATCH ``guard`` was made (same sizes
    there): a stride the sizes do not explain (not the contiguous ``size[d+1] * stride[d+1]``)."""
    from autograph.guards.model import TENSOR_MATCH
    from autograph.guards.sources import is_module_state

    if guard is None or guard.kind is not TENSOR_MATCH or is_module_state(guard.source):
        return set()
    value = resolve(guard.source, fn, args, kwargs)
    import torch

    if type(value) is not torch.Tensor:
        return set()
    f = guard.expected
    if (value.dtype != f.dtype or value.device != f.device or value.dim() != len(f.sizes)
            or f.strides is None or value.layout is not torch.strided):
        return set()
    sizes, strides = tuple(value.size()), tuple(value.stride())
    return {d for d, (now, then) in enumerate(zip(strides, f.strides))
            if then is not None and now != then and f.sizes[d] == sizes[d]
            and not (_inferred(sizes, strides, d) and _inferred(f.sizes, f.strides, d))}


def _inferred(sizes: tuple, strides: tuple, d: int) -> bool:
    """Whether stride ``d`` is what a contiguous layout gives (then a size change explains it)."""
    if d == len(sizes) - 1:
        return strides[d] == 1
    inner_size, inner_stride = sizes[d + 1], strides[d + 1]
    return inner_size is not None and inner_stride is not None and strides[d] == inner_size * inner_stride


def changed_scalar(guard: Any, fn: types.FunctionType, args: tuple, kwargs: dict) -> type | None:
    """``int`` or ``float`` (or the NumPy integer class) when ``guard`` failed only because that
    Python scalar (NumPy integer) changed value, its type the same."""
    from autograph.guards.model import EQUALS_MATCH, OBJECT_EQUALS

    if guard is None or not (guard.kind is EQUALS_MATCH and type(guard.expected) in (int, float)
                             or guard.kind is OBJECT_EQUALS and _numpy_int(guard.expected)):
        return None
    value = resolve(guard.source, fn, args, kwargs)
    if type(value) is not type(guard.expected) or value == guard.expected:
        return None
    return type(value)


def _numpy_int(value: Any) -> bool:
    if type(value).__module__ != "numpy":
        return False
    from autograph.capture.families.numpy_ints import INT_TYPES
    return type(value) in INT_TYPES


def resolve(source: Any, fn: types.FunctionType, args: tuple, kwargs: dict) -> Any:
    """The value ``source`` names in this call (locals, attributes, items); None when unknown."""
    from autograph.guards.sources import AttrSource, ItemSource, LocalSource

    if isinstance(source, LocalSource):
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return bound.arguments.get(source.name)
    if isinstance(source, AttrSource):
        base = resolve(source.base, fn, args, kwargs)
        try:
            return getattr(base, source.attr, None) if base is not None else None
        except Exception:  # noqa: BLE001 - a user __getattr__ raising something else than AttributeError
            return None
    if isinstance(source, ItemSource):
        base = resolve(source.base, fn, args, kwargs)
        try:
            return base[source.key]
        except Exception:  # noqa: BLE001
            return None
    return None


def _marked(args: tuple, kwargs: dict) -> bool:
    """Whether an argument (or a tensor in a list/tuple argument) carries ``mark_dynamic`` dims."""
    import torch

    for a in list(args) + list(kwargs.values()):
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            # tensors only: reading an attribute of any other argument could run its
            # ``__getattr__`` (a dict subclass forwarding to ``self[name]`` raises KeyError)
            if isinstance(t, torch.Tensor) and getattr(t, "_autograph_dynamic_dims", None):
                return True
    return False


def dynamic_plan_for(shim: Any, args: tuple, kwargs: dict, settings: Settings, failed: Any, entries: tuple = ()):
    """The :class:`~autograph.capture.core.shapes.Plan` of the capture this missed call starts."""
    from autograph.capture.core.shapes import Plan

    mode = settings.dynamic
    dims = _state(shim)
    if dims.get(_FAILED):  # a symbolic capture of this code failed before: do not pay for it again
        return Plan("static", {}, False)
    newest = entries[-1] if entries else None
    if mode == "auto" and failed is not None:
        # any miss (a size, but also a list's length or a constant): every tensor input whose
        # sizes differ from those it had when last captured goes dynamic at once, as Dynamo's
        # automatic dynamic compares each source with the sizes it last saw on every recompile
        from autograph.guards.model import TENSOR_MATCH

        last_seen = {g.source.expr: g for entry in entries for g in entry.guards.guards if g.kind is TENSOR_MATCH}
        for guard in last_seen.values():
            changed = changed_dims(guard, shim.fn, args, kwargs)
            if changed:
                expr = guard.source.expr
                with _lock:
                    dims[expr] = set(dims.get(expr, ())) | changed
                log.info("%s: size change of %s in dimension(s) %s: compiling them dynamic",
                         shim.fn.__qualname__, expr, sorted(changed))
    if mode != "static" and failed is not None:
        _note_changed_strides(shim, dims, entries, args, kwargs)
    if mode != "static" and failed is not None and changed_scalar(failed, shim.fn, args, kwargs):
        # a Python int/float changed value: every scalar of the newest entry that changed becomes an input
        changed = {guard.source.expr for guard in (newest.guards.guards if newest is not None else ())
                   if changed_scalar(guard, shim.fn, args, kwargs)}
        with _lock:
            dims[_SCALARS] = set(dims.get(_SCALARS, ())) | changed
        log.info("%s: value change of %s: compiling them as inputs", shim.fn.__qualname__, sorted(changed))
    if mode == "static":
        return Plan("static", {}, _marked(args, kwargs))
    scalars = frozenset(dims.get(_SCALARS, ()))
    strides = {k: frozenset(v) for k, v in dims.get(_STRIDES, {}).items()}
    plan_dims = {k: frozenset(v) for k, v in dims.items() if k not in (_FAILED, _SCALARS, _STRIDES)} \
        if mode == "auto" else {}
    symbolic = mode == "always" or bool(plan_dims) or bool(scalars) or bool(strides) or _marked(args, kwargs)
    return Plan(mode, plan_dims, symbolic, scalars, _floats_in_graph(settings) if scalars else True, strides)


def _note_changed_strides(shim: Any, dims: dict, entries: tuple, args: tuple, kwargs: dict) -> None:
    """Every tensor input whose strides alone changed since its newest guard: those strides become
    symbolic in this and later captures (sizes follow their own rule above)."""
    from autograph.guards.model import TENSOR_MATCH

    last_seen = {g.source.expr: g for entry in entries for g in entry.guards.guards if g.kind is TENSOR_MATCH}
    for expr, guard in last_seen.items():
        changed = changed_strides(guard, shim.fn, args, kwargs)
        if changed:
            with _lock:
                known = dims.setdefault(_STRIDES, {})
                known[expr] = set(known.get(expr, ())) | changed
            log.info("%s: stride change of %s in dimension(s) %s: compiling them dynamic",
                     shim.fn.__qualname__, expr, sorted(changed))


def _floats_in_graph(settings: Settings) -> bool:
    """Whether the backend compiles graphs with Python-float (SymFloat) inputs.

    The eager backend runs them as Python does, and so does ``auto`` on CPU, whose graphs run
    eagerly until a background compile replaces them (a graph with float inputs is not sent to it:
    ``backends/inductor_artifacts.request`` refuses it); torch's inductor and autograph's Triton
    backend do not lower them (inductor fails, Triton falls back to aten), so for those a
    float used by a torch operation is specialised there (its Python arithmetic stays dynamic).
    """
    try:
        from autograph.backends.registry import lookup

        return getattr(lookup(settings.backend, settings=settings), "backend_name", "") in ("eager", "background")
    except Exception:  # noqa: BLE001 - an unresolvable backend fails the capture later, with its own message
        return False


def capture_with_plan(capture: Callable[..., Any], shim: Any, args: tuple, kwargs: dict, settings: Settings,
                      failed: Any, wrap_nested: Callable, *, entries: tuple = ()) -> Any:
    """Run ``capture`` under this call's plan (``entries``: the function's cache entries, oldest
    first); a failed symbolic capture is retried statically."""
    from autograph.capture.core import shapes

    plan = dynamic_plan_for(shim, args, kwargs, settings, failed, entries)
    if not plan.symbolic:
        with shapes.using(plan):
            return capture(shim.fn, args, kwargs, settings, wrap_nested=wrap_nested)
    try:
        with shapes.using(plan):
            return capture(shim.fn, args, kwargs, settings, wrap_nested=wrap_nested)
    except Exception as exc:  # noqa: BLE001 - never worse than a static capture
        log.info("%s: dynamic capture failed (%s); capturing with static sizes", shim.fn.__qualname__, exc)
        shim.stats.errors.append(f"dynamic capture failed, compiled with static sizes: {exc}")
        _state(shim)[_FAILED] = True
        with shapes.using(shapes.STATIC):
            return capture(shim.fn, args, kwargs, settings, wrap_nested=wrap_nested)
