"""``with`` blocks in captured code, and the grad-mode context managers.

``BEFORE_WITH`` is interpreted through the object protocol (``__enter__`` now,
``__exit__`` bound for the normal exit path), so Python-level context managers
are inlined. ``torch.no_grad()``, ``torch.enable_grad()`` and
``torch.set_grad_enabled(flag)`` switch the grad mode *inside the graph*
(``torch._C._set_grad_enabled`` nodes, as TorchDynamo does) and for the fake
propagation while capture is inside the block. A graph break inside such a block
cannot be resumed faithfully, so the context refuses to be rebuilt there and the
capture falls back (never a wrong grad mode).
"""
from __future__ import annotations

import types

import torch

from autograph.capture import interpreter
from autograph.capture.breaks import Unsupported
from autograph.capture.values import builtins as vb
from autograph.capture.values.base import Value
from autograph.capture.values.constants import ConstantValue

_GRAD_CLASSES = (torch.no_grad, torch.enable_grad, torch.set_grad_enabled)


def _set_grad(tx, enabled: bool) -> None:
    """Switch grad mode for the rest of the capture and in the graph at this point."""
    torch._C._set_grad_enabled(enabled)
    node = tx.graph.graph.create_node("call_function", torch._C._set_grad_enabled, (enabled,), {},
                                      name=tx.graph._name("set_grad_enabled"))
    node.meta["mutates"] = True  # kept by dead-code elimination: its effect is the point
    node.meta["example_value"] = None
    node.stack_trace = tx.graph.current_trace


class GradModeContextValue(Value):
    """``torch.no_grad()`` & co. made during capture.

    The real grad mode follows the block while capture is inside it (fake tensors
    get the right ``requires_grad``); ``autograph.capture.api.capture`` restores
    the caller's mode when capture ends, also on failure."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.saved: list[bool] = []

    def describe(self):
        return f"grad-mode context (enabled={self.enabled})"

    def python_type(self):
        return torch.enable_grad if self.enabled else torch.no_grad

    def call_method(self, tx, name, args, kwargs):
        if name == "__enter__" and not args and not kwargs:
            self.saved.append(torch.is_grad_enabled())
            _set_grad(tx, self.enabled)
            return ConstantValue(None)
        if name == "__exit__":
            return self.exit(tx)
        if name == "clone" and not args and not kwargs:
            return GradModeContextValue(self.enabled)
        raise Unsupported(f"`.{name}()` of {self.describe()}")

    def exit(self, tx) -> Value:
        if not self.saved:
            raise Unsupported(f"__exit__ of {self.describe()} that was not entered")
        _set_grad(tx, self.saved.pop())
        return ConstantValue(None)

    def getattr(self, tx, name):
        if name == "__exit__":
            return _ExitValue(self)
        if name in ("__enter__", "clone"):
            return _MethodOf(self, name)
        raise Unsupported(f"attribute `.{name}` of {self.describe()}")

    def reconstruct(self, cg):
        raise Unsupported(f"a graph break inside a `with {self.describe()}` block")


class _MethodOf(Value):
    def __init__(self, ctx: GradModeContextValue, name: str):
        self.ctx = ctx
        self.name = name

    def call(self, tx, args, kwargs):
        return self.ctx.call_method(tx, self.name, args, kwargs)

    def reconstruct(self, cg):
        raise Unsupported(f"a graph break inside a `with {self.ctx.describe()}` block")


class _ExitValue(_MethodOf):
    def __init__(self, ctx: GradModeContextValue):
        super().__init__(ctx, "__exit__")

    def call(self, tx, args, kwargs):
        if any(not (a.is_constant() and a.as_python_constant() is None) for a in args):
            raise Unsupported("leaving a grad-mode block with an exception")
        return self.ctx.exit(tx)


def _construct(tx, cls, args, kwargs):
    if cls not in _GRAD_CLASSES:
        return NotImplemented
    if cls is torch.set_grad_enabled:
        if len(args) != 1 or kwargs or not args[0].is_constant():
            return NotImplemented
        return GradModeContextValue(bool(args[0].as_python_constant()))
    if args or kwargs:
        return NotImplemented
    return GradModeContextValue(cls is torch.enable_grad)


def _python_manager(mgr: Value) -> bool:
    """A manager whose __enter__/__exit__ capture interprets (never runs for real at capture time)."""
    if isinstance(mgr, GradModeContextValue):
        return True
    try:
        cls = mgr.python_type()
    except Unsupported:
        return False
    return all(isinstance(getattr(cls, name, None), types.FunctionType) for name in ("__enter__", "__exit__"))


@interpreter.handler("BEFORE_WITH")
def _before_with(tx, frame, inst):
    mgr = frame.stack[-1]
    if not _python_manager(mgr):
        raise Unsupported(f"`with` on {mgr.describe()} (its __enter__/__exit__ are not Python code)")
    frame.pop()
    exit_fn = mgr.getattr(tx, "__exit__")
    frame.push(exit_fn)
    frame.push(mgr.call_method(tx, "__enter__", [], {}))


def install() -> None:
    if _construct not in vb.CLASS_CALL_HOOKS:
        vb.CLASS_CALL_HOOKS.insert(0, _construct)


install()
