"""Torch queries answered at capture time, the way TorchDynamo answers them.

* ``torch.compiler.is_compiling()`` (and its aliases) is True inside captured
  code: libraries use it to skip eager-only work (hook registration,
  data-dependent checks) while being compiled.
* ``torch.jit.is_tracing()`` / ``is_scripting()`` are False (autograph is neither).
* ``torch.finfo(dtype)`` / ``torch.iinfo(dtype)`` of a constant dtype are constants.
* ``nn.Parameter(t)`` made in the call is a break of its own kind (``parameter-made-in-call``):
  a new leaf that requires grad, whose uses build autograd history from it rather than from
  ``t``; made in Python, it reaches the next graph as an input.
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.core import registry
from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.families import builtins as vb
from autograph.capture.core.constants import ConstantValue


def _const(value: bool):
    def answer(tx, args, kwargs):
        if args or kwargs:
            return NotImplemented
        return ConstantValue(value)
    return answer


def _compiling_functions() -> list[Any]:
    fns = [getattr(torch.compiler, "is_compiling", None), getattr(torch.compiler, "is_dynamo_compiling", None)]
    import torch._dynamo.external_utils as external_utils
    from torch._utils import is_compiling

    # aliases torch versions add or drop: a missing one is simply not answered
    fns += [getattr(torch._dynamo, "is_compiling", None), getattr(external_utils, "is_compiling", None), is_compiling]
    return [f for f in fns if f is not None]


def _dtype_info(cls):
    def construct(tx, klass, args, kwargs):
        if klass is not cls or kwargs or len(args) > 1 or not vb._all_constant(args, {}):
            return NotImplemented
        return vb.fold(tx, cls, args, {}, cls.__name__)
    return construct


PARAMETER_MADE = break_kind(
    "parameter-made-in-call", "`nn.Parameter(...)` made inside the compiled function: a new leaf tensor "
    "that requires grad, whose later uses build autograd history from it (not from the tensor it was made "
    "from); it is made in Python between two graphs and the next graph takes it as an input",
    "create parameters once, outside the compiled function (a module's `__init__`), and pass them in")


def _parameter(tx, cls: Any, args, kwargs):
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Parameter)):
        return NotImplemented
    raise Unsupported(f"{cls.__qualname__}(...) made in the call", kind=PARAMETER_MADE)


def install() -> None:
    registry.add_class_call_hook(_parameter)
    for fn in _compiling_functions():
        registry.register_torch_call(fn, _const(True))
    for fn in (torch.jit.is_tracing, torch.jit.is_scripting, torch._C._get_tracing_state):
        registry.register_torch_call(fn, _const(False), replace=False)
    for cls in (torch.finfo, torch.iinfo):
        registry.mark_immutable_type(cls)  # read-only attributes: a folded one may be shared
        registry.add_class_call_hook(_dtype_info(cls))
