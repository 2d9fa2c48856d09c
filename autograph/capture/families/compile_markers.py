"""torch's own "do not compile this" markers: a marked function is one opaque call.

``torch._disable_dynamo`` (torch's lazy wrapper around ``Optimizer.zero_grad``,
``state_dict``, ...), ``torch.compiler.disable`` and ``torch._dynamo.disable`` say that
TorchDynamo must not trace a function; capture honours them the same way: the call is a
graph break at the call site in the user's function and runs natively, once, without a
cache of its own.
"""
from __future__ import annotations

import sys
import types
from typing import Any

from autograph.capture.core.breaks import Unsupported, break_kind

COMPILE_DISABLED = break_kind(
    "compile-disabled", "a call of a function torch marks as not to be compiled (torch.compiler.disable, "
    "torch._disable_dynamo): it runs in Python as one call, as under torch.compile",
    "nothing to do: the library asked for it; keep such calls (optimizer.zero_grad(set_to_none=True) "
    "is one) next to loss.backward() so the graphs around them stay whole")

_lazy_inner_code: list[types.CodeType] = []


def _disable_dynamo_code() -> types.CodeType | None:
    """The code of ``torch._disable_dynamo``'s wrapper (shared by every function it wraps)."""
    if not _lazy_inner_code:
        compile_module = sys.modules.get("torch._compile")
        maker = getattr(compile_module, "_disable_dynamo", None)
        if maker is None:
            return None
        _lazy_inner_code.append(maker(lambda: None).__code__)
    return _lazy_inner_code[0]


def disabled_marker(fn: Any) -> str | None:
    """The marker that keeps compilers out of ``fn``, or None."""
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        return None
    if fn.__dict__.get("_torchdynamo_disable"):
        return "torch.compiler.disable"
    code = _disable_dynamo_code()
    if code is not None and fn.__code__ is code:
        return "torch._disable_dynamo"
    return None


def marked_name(fn: Any) -> str:
    inner = fn.__dict__.get("_torchdynamo_orig_callable") or getattr(fn, "__wrapped__", None) or fn
    return getattr(inner, "__qualname__", None) or repr(inner)


def refuse_marked(fn: Any) -> None:
    """Raise the graph break for a call of a function torch marks as not to be compiled."""
    marker = disabled_marker(fn)
    if marker is not None:
        raise Unsupported(f"call of {marked_name(fn)}, marked {marker}: one call in Python", kind=COMPILE_DISABLED)
