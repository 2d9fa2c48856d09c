"""Functions made by ``torch.jit.script``: one graph operation calling the scripted function.

A ``ScriptFunction`` runs TorchScript's interpreter, which dispatches aten operations like any
torch function: on the capture's fake tensors it computes result shapes and dtypes, and the
effect recorder sees every aten operation it reaches (an in-place write to an argument is kept by
schema). The graph node calls the very same scripted function at run time, so its semantics are
TorchScript's own (``torch.jit.is_scripting()`` is true inside it), not the Python source's.
A call without tensor arguments is not a graph operation: it runs in Python (a break).
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported


# id(scripted function) -> (it, the Python function graph nodes call it through): FX names a
# target by its module and name, and a ScriptFunction's are its type's (``torch.jit.ScriptFunction``)
_CALLERS: dict[int, tuple[Any, Any]] = {}


def graph_target(fn: Any) -> Any:
    """A plain Python function calling ``fn`` (one per scripted function), the graph node's target."""
    entry = _CALLERS.get(id(fn))
    if entry is None or entry[0] is not fn:
        def call_scripted(*args, **kwargs):
            return fn(*args, **kwargs)
        call_scripted.__name__ = call_scripted.__qualname__ = f"scripted_{getattr(fn, 'name', 'function')}"
        entry = _CALLERS[id(fn)] = (fn, call_scripted)
    return entry[1]


def _has_tensor(values) -> bool:
    return any(v.is_tensor() for v in values)


class ScriptFunctionValue(Value):
    """A ``torch.jit.ScriptFunction`` (``torch.jit.script`` of a function)."""

    def __init__(self, fn: Any, source=None):
        self.fn = fn
        self.source = source

    def describe(self) -> str:
        return f"scripted function {getattr(self.fn, 'name', '?')}"

    def python_type(self):
        return type(self.fn)

    def real_value(self):
        return self.fn

    def call(self, tx, args, kwargs):
        if not _has_tensor([*args, *kwargs.values()]):
            raise Unsupported(f"{self.describe()} called without a tensor argument", kind="unsupported-call")
        return tx.graph.call("call_function", graph_target(self.fn), tuple(args), kwargs)

    def reconstruct(self, cg):
        return cg.source_expr(self.source) if self.source is not None else cg.const(self.fn)


def _wrap(tx, obj: Any, source) -> Value | None:
    """``CALLABLE_WRAPPERS`` hook: a scripted function (guarded by identity)."""
    if not isinstance(obj, torch.jit.ScriptFunction):
        return None
    if source is not None:
        tx.guards.id_(source, obj)
    return ScriptFunctionValue(obj, source)


def install() -> None:
    registry.add_callable_wrapper(_wrap)
