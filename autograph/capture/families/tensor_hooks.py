"""``x.register_hook(fn)`` on a leaf tensor passed in: a registration replayed after the graph.

A hook fires only when autograd runs through the tensor. Inside a graph nothing runs autograd
but ``torch.autograd.grad`` (``.backward()`` is a break), so the registration is recorded as a
side effect (families/side_effects.py) and made on the real tensor after the graph, in program
order; a pending registration ends the graph before ``torch.autograd.grad``/``backward`` (kind
``tensor-hook``), so the hook is there when autograd runs. Backward after the call sees it as in
eager. Only leaves that require grad are modelled: the hook of a non-leaf depends on the
tensor's autograd history at the registration, which in-place operations change (guarded:
``x.is_leaf``). ``register_hook`` on a tensor that does not require grad raises PyTorch's own
RuntimeError. The handle it returns is made by the replay: used in the call (``h.remove()``) or
live at a break, the break moves to the registration, which then runs in Python. Hooks on
tensors the graph computes are a break (``tensor-hook``): their backward is the compiled graph's.
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.families import side_effects
from autograph.guards.sources import AttrSource

_TENSOR_HOOK = "tensor-hook"  # (registered in families/tensors.py)


class HookHandleValue(Value):
    """The ``RemovableHandle`` a deferred registration returns: made only by the replay."""

    def describe(self) -> str:
        return "hook handle of a registration replayed after the graph"

    def python_type(self):
        return torch.utils.hooks.RemovableHandle

    def getattr(self, tx, name):
        raise Unsupported(f"`.{name}` of a {self.describe()}", kind=_TENSOR_HOOK)

    def reconstruct(self, cg):
        raise Unsupported(f"a {self.describe()} is live where the graph ends", kind=_TENSOR_HOOK)


def _pending_registration(tx) -> bool:
    effects = side_effects.SIDE_EFFECTS.peek(tx)
    return effects is not None and any(
        event[0] == "call" and event[1] is torch.Tensor.register_hook for event in effects.events)


def _register_hook(tx, tensor: Value, args: list[Value], kwargs: dict[str, Value]) -> Any:
    """``TENSOR_METHOD_OVERRIDES`` entry for ``register_hook``."""
    if kwargs or len(args) != 1 or tensor.source is None or getattr(tensor, "node", None) is None \
            or tensor.node.op != "placeholder":
        return NotImplemented  # (a tensor the graph computes: the break of families/tensors.py)
    if not tensor.fake.requires_grad:  # (guarded by TENSOR_MATCH)
        exc = RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        raise Unsupported(f"RuntimeError: {exc}", generic=True, exc=exc, kind="python-exception")
    src = tensor.source
    real = next((t for _, t, node in tx.graph.inputs if node is tensor.node), None)
    if not isinstance(real, torch.Tensor) or not real.is_leaf:
        return NotImplemented
    tx.guards.read_equals(AttrSource(src, "is_leaf"), True)
    side_effects.record_call(tx, torch.Tensor.register_hook, [tensor, args[0]], {})
    handle = HookHandleValue()
    handle.created_step = tx.step  # used or live at a break: the registration runs in Python
    return handle


def _autograd_grad(previous):
    def handler(tx, args, kwargs):
        if _pending_registration(tx):
            raise Unsupported("autograd run with a hook registration pending (made before it)",
                              kind=_TENSOR_HOOK)
        return previous(tx, args, kwargs) if previous is not None else NotImplemented
    return handler


def install() -> None:
    registry.register_tensor_method("register_hook", _register_hook)
    for fn in (torch.autograd.grad, torch.autograd.backward):  # what runs autograd inside a graph
        registry.wrap_torch_call(fn, _autograd_grad)
