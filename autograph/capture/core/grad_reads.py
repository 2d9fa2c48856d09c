"""A torch Python function that reads ``.grad`` of a tensor argument is no graph operation.

``_clip_grads_with_norm_(parameters, ...)`` reads and scales ``p.grad`` of the parameters it is
given: as one graph node it would run on the real tensors under the eager backend, but a
functionalizing backend traces it with the parameters alone and loses the gradients it writes.
Such a call is interpreted instead (families/torch_calls.py), so the ``.grad`` reads become graph
inputs of their own (families/tensors.py). Found while the call runs on fake tensors: a torch
function mode sees every read of the ``grad`` attribute. The mode is pushed only for Python
functions given a tensor that has a gradient, so other calls run on fake tensors as before.
"""
from __future__ import annotations

import types
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten

from autograph.capture.core.breaks import Unsupported

READS_GRAD = "reads `.grad` of a tensor argument"
_GRAD = torch._C.TensorBase.grad


def may_read_grads(target: Any, args: tuple, kwargs: dict) -> bool:
    """A Python function given a leaf tensor that has a gradient (only leaves get one)."""
    if type(target) is not types.FunctionType:
        return False
    return any(isinstance(t, torch.Tensor) and t.is_leaf and t.grad is not None  # (a non-leaf's .grad warns)
               for t in tree_flatten((args, kwargs))[0])


class GradReads(TorchFunctionMode):
    """Records whether the code run under it read a tensor's ``.grad``."""

    def __init__(self) -> None:
        super().__init__()
        self.read = False

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        if getattr(func, "__self__", None) is _GRAD:
            self.read = True
        return func(*args, **(kwargs or {}))

    def refuse(self, target: Any) -> None:
        if self.read:
            raise Unsupported(f"{getattr(target, '__qualname__', target)}() {READS_GRAD}", kind="unsupported-call")
