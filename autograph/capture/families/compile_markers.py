"""torch's own "do not compile this" markers: a marked function is one opaque call.

``torch._dynamo.graph_break()`` asks for a graph break where it is called: capture breaks
there (inside an inlined function: at the call site in the caller, as Dynamo does), so the
graphs around it are the ones torch.compile makes.

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

FORCED_BREAK = break_kind(
    "forced-break", "the code calls torch._dynamo.graph_break(), which asks for a graph break here",
    "nothing to do: the break is asked for; remove the call to keep the graphs around it whole")

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


def refuse_graph_break_request(fn: Any) -> None:
    """Raise the asked-for graph break when ``fn`` is ``torch._dynamo.graph_break``."""
    if _is_graph_break_request(fn):
        raise Unsupported("torch._dynamo.graph_break() called", kind=FORCED_BREAK)


def _is_graph_break_request(fn: Any) -> bool:
    """Whether ``fn`` is ``torch._dynamo.graph_break`` (looked up only once torch._dynamo is loaded)."""
    decorators = sys.modules.get("torch._dynamo.decorators")
    return decorators is not None and fn is getattr(decorators, "graph_break", None)


def refuse_marked(fn: Any) -> None:
    """Raise the graph break for a call of a function torch marks as not to be compiled, or of
    ``torch._dynamo.graph_break`` (an asked-for break)."""
    refuse_graph_break_request(fn)
    marker = disabled_marker(fn)
    if marker is not None:
        raise Unsupported(f"call of {marked_name(fn)}, marked {marker}: one call in Python", kind=COMPILE_DISABLED)
