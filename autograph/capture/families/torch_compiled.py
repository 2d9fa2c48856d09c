"""Callables compiled by ``torch.compile`` met during capture: left to torch.compile.

A ``torch.compile``'d function (Dynamo's ``compile_wrapper``), a method decorated with
``@torch.compile`` or an ``OptimizedModule`` is not inlined: its call is a graph break,
so the call runs natively and TorchDynamo compiles and runs it exactly as it would
without autograph (same graphs, same random-number consumption). Inside that region
autograph steps aside (``autograph/runtime/dynamo.py``).
"""
from __future__ import annotations

import sys
import types
from typing import Any

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.base import Value
from autograph.guards.sources import AttrSource

TORCH_COMPILE_CALL = break_kind(
    "torch-compile-call", "a call of a function or module compiled with torch.compile: torch.compile runs it",
    "nothing to do: the call runs under torch.compile as without autograph; to compile it with autograph "
    "instead, call the original (`mod._orig_mod`, `fn._torchdynamo_orig_callable`)")


def is_torch_compiled(obj: Any) -> bool:
    """Whether ``obj`` is a ``torch.compile`` result (function, bound method or ``OptimizedModule``)."""
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if type(obj) is types.FunctionType:  # exact type: the hook's wrappers pose as functions
        return "_torchdynamo_orig_callable" in obj.__dict__
    dynamo = sys.modules.get("torch._dynamo.eval_frame")
    optimized = getattr(dynamo, "OptimizedModule", None)
    return optimized is not None and isinstance(obj, optimized)


class TorchCompiledValue(Value):
    """A ``torch.compile`` result: calling it is a graph break (torch.compile runs the call)."""

    def __init__(self, fn: Any, source=None):
        self.fn = fn
        self.source = source

    def describe(self) -> str:
        inner = getattr(self.fn, "_torchdynamo_orig_callable", None) or getattr(self.fn, "_orig_mod", None)
        name = getattr(inner, "__qualname__", None) or type(inner).__name__
        return f"torch.compile({name})"

    def python_type(self) -> type:
        return type(self.fn)

    def real_value(self) -> Any:
        return self.fn

    def call(self, tx, args, kwargs) -> Value:
        from autograph.capture.families.compile_markers import refuse_marked
        refuse_marked(self.fn)  # torch.compiler.disable: not a torch.compile call
        raise Unsupported(f"call of {self.describe()}: torch.compile runs it", kind=TORCH_COMPILE_CALL)

    def getattr(self, tx, name: str) -> Value:
        try:
            attr = getattr(self.fn, name)
        except AttributeError as exc:
            raise Unsupported(f"AttributeError on {self.describe()}: {exc}", generic=True, exc=exc,
                              kind="python-exception")
        return tx.wrap(attr, AttrSource(self.source, name) if self.source is not None else None,
                       trusted=self.source is None)

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.const(self.fn)
