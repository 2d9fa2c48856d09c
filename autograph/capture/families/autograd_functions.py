"""``MyFunction.apply(...)`` of a ``torch.autograd.Function``.

Without inputs that require grad (or under ``no_grad``), ``apply`` runs ``forward``
under no-grad (and ``setup_context`` when the class defines one) and returns its
outputs: capture inlines exactly that, with a context object that takes the
bookkeeping calls (``save_for_backward``, ``mark_dirty``...) and attribute stores.
With inputs that require grad the graph calls the real ``apply`` (so the user's
``backward`` computes the gradients) once capture has proved, by interpreting it,
that ``forward`` runs only tensor code; anything else runs in Python (a break).
"""
from __future__ import annotations

import types
from typing import Any

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import TupleValue

_BOOKKEEPING = {"save_for_backward", "save_for_forward", "mark_dirty", "mark_non_differentiable",
                "set_materialize_grads"}


def is_function_apply(obj: Any) -> bool:
    """``obj`` is ``F.apply`` for a subclass ``F`` of ``torch.autograd.Function``."""
    return (isinstance(obj, types.MethodType) and isinstance(obj.__self__, type)
            and issubclass(obj.__self__, torch.autograd.Function)
            and obj.__func__ is torch.autograd.Function.apply.__func__)


class _CtxValue(Value):
    """The ``ctx`` of a no-grad ``apply``: attribute stores stay on it, bookkeeping is a no-op."""

    def __init__(self, n_inputs: int):
        self.attrs: dict[str, Value] = {"needs_input_grad": ConstantValue((False,) * n_inputs)}

    def describe(self):
        return "autograd.Function context"

    def getattr(self, tx, name):
        if name in self.attrs:
            return self.attrs[name]
        if name in _BOOKKEEPING:
            return _Bookkeeping(name)
        raise Unsupported(f"attribute `.{name}` of an autograd.Function context", kind="unsupported-operation")

    def setattr(self, tx, name, value):
        self.attrs[name] = value


class _Bookkeeping(Value):
    def __init__(self, name: str):
        self.name = name

    def describe(self):
        return f"ctx.{self.name}"

    def call(self, tx, args, kwargs):
        return ConstantValue(None)


def _requires_grad(value: Value) -> bool:
    fake = getattr(value, "fake", None)
    return isinstance(fake, torch.Tensor) and fake.requires_grad


def _apply_target(cls: type):
    """The callable a graph node runs: ``cls.apply`` under a name of the user's module (FX
    would otherwise print a bound method of torch's ``Function`` as an importable torch name)."""
    def apply(*args, **kwargs):
        return cls.apply(*args, **kwargs)

    apply.__name__ = apply.__qualname__ = f"{cls.__name__}_apply"
    apply.__module__ = cls.__module__
    return apply


class FunctionApplyValue(Value):
    def __init__(self, fn_class: type):
        self.fn_class = fn_class

    def describe(self):
        return f"{self.fn_class.__qualname__}.apply"

    def reconstruct(self, cg):
        return f"{cg.const(self.fn_class)}.apply"

    def call(self, tx, args, kwargs):
        flat = [*args, *kwargs.values()]
        if not (torch.is_grad_enabled() and any(_requires_grad(v) for v in flat)):
            return self._inline(tx, args, kwargs)
        # gradients flow through the user's backward: the graph calls the real apply; its
        # forward is first interpreted (and thrown away) to prove it runs nothing but tensor
        # code, since the fake-tensor run below executes it once more at capture time
        from autograph.capture.families import side_effects
        graph = tx.graph.graph
        marker, ops = next(reversed(graph.nodes), None), tx.graph.op_count
        events = len(side_effects._events(tx))
        was_enabled = torch.is_grad_enabled()
        try:
            self._inline(tx, args, kwargs)
        finally:
            torch._C._set_grad_enabled(was_enabled)
            added = []
            for node in reversed(graph.nodes):
                if node is marker:
                    break
                added.append(node)
            for node in added:  # newest first: users go before what they use
                if node.op.startswith("call_"):  # placeholders and get_attr stay: capture keeps
                    graph.erase_node(node)       # them in its input tables (unused ones are harmless)
            tx.graph.op_count = ops
        if len(side_effects._events(tx)) != events:
            del side_effects._events(tx)[events:]
            raise Unsupported(f"{self.describe()}: its forward has Python side effects", kind="side-effect")
        return tx.graph.call("call_function", _apply_target(self.fn_class), tuple(args), dict(kwargs))

    def _inline(self, tx, args, kwargs):
        cls = self.fn_class
        name = cls.__qualname__
        flat = [*args, *kwargs.values()]
        from autograph.capture.families.contexts import _set_grad
        from autograph.capture.families.functions import UserFunctionValue
        forward = cls.__dict__.get("forward") if "forward" in cls.__dict__ else cls.forward
        forward = forward.__func__ if isinstance(forward, staticmethod) else forward
        setup = getattr(cls, "setup_context", None)
        own_setup = getattr(setup, "__func__", setup) is not torch.autograd.Function.setup_context
        if not isinstance(forward, types.FunctionType) or (own_setup and not isinstance(setup, types.FunctionType)):
            raise Unsupported(f"{name}.apply: forward/setup_context are not Python functions", kind="unsupported-call")
        tx.guards.class_attr(cls, "forward")
        tx.guards.class_attr(cls, "setup_context")
        tx.guards.class_attr(cls, "backward")
        ctx = _CtxValue(len(args))
        was_enabled = torch.is_grad_enabled()
        _set_grad(tx, False)  # apply runs forward under no-grad
        try:
            if own_setup:
                out = UserFunctionValue(forward).call(tx, list(args), dict(kwargs))
                UserFunctionValue(setup).call(tx, [ctx, TupleValue(list(args)), out], {})
            else:
                out = UserFunctionValue(forward).call(tx, [ctx, *args], dict(kwargs))
        except Unsupported as exc:
            raise Unsupported(f"{name}.apply: {exc.reason}", generic=True, kind="python-exception") from None
        finally:
            _set_grad(tx, was_enabled)
        outputs = out.items if isinstance(out, TupleValue) else [out]
        if any(o is a for o in outputs for a in flat):
            raise Unsupported(f"{name}.forward returns one of its inputs (apply would return a new tensor)",
                              kind="unsupported-call")
        return out
