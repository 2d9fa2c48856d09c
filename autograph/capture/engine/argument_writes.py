"""Python-object writes of a torch Python function run as one graph node.

A torch function written in Python (``torch.optim.lr_scheduler._update_param_group_val``,
``Tensor.__deepcopy__``) is run on fake tensors at capture and recorded as one node. Its tensor
effects are seen by the fake run, but the Python containers it gets are copies rebuilt for that
run (and rebuilt again by the graph at run time), so a write into one (``memo[id(self)] = new``,
``group["lr"] = v``) would be lost to the program: such a call is no graph operation and is left
to Python (interpreted, or called once at run time). A real mutable object among its arguments is
refused before the fake run, since a write into it would be made for real at capture time.
"""
from __future__ import annotations

import enum
import inspect
import types
from typing import Any

import torch
import torch.fx

from autograph.capture.core.breaks import Unsupported

# values a Python body cannot write into (or whose writes the fake run already tracks: tensors)
_UNWRITABLE = (str, bytes, int, float, complex, bool, type(None), type(Ellipsis), range, slice, type,
               types.FunctionType, types.BuiltinFunctionType, types.ModuleType, enum.Enum,
               torch.dtype, torch.device, torch.layout, torch.memory_format, torch.Tensor,
               torch.SymInt, torch.SymFloat, torch.SymBool, torch.fx.Node, frozenset)
_CONTAINERS = (list, tuple, dict, set)


def python_body(kind: str, target: Any, fake_args: tuple) -> bool:
    """Whether the call runs a Python function's body (which may write Python objects), not an
    operator or a C function."""
    if kind == "call_method":
        if not fake_args or not isinstance(target, str):
            return False
        try:
            target = inspect.getattr_static(type(fake_args[0]), target)
        except AttributeError:
            return False
        if isinstance(target, (staticmethod, classmethod)):
            target = target.__func__
    return isinstance(target, types.FunctionType)


def fingerprint(fake_args: tuple, fake_kwargs: dict, name: str) -> list:
    """Identity and length of every container the call gets and of what each holds, in a fixed
    order (equal before and after the fake run exactly when it wrote none of them). A real
    object that is neither a container nor unwritable is refused now, before the run could
    write it for real."""
    out: list = []
    seen: set[int] = set()
    stack: list = [fake_kwargs, fake_args]
    while stack:
        obj = stack.pop()
        if isinstance(obj, _UNWRITABLE):
            out.append(id(obj))
            continue
        if not isinstance(obj, _CONTAINERS):
            raise Unsupported(f"{type(obj).__name__} object (a Python function of torch may write it) "
                              f"passed to a torch operation", kind="unsupported-torch-value")
        if id(obj) in seen:
            out.append(("again", id(obj)))
            continue
        seen.add(id(obj))
        children = [c for kv in obj.items() for c in kv] if isinstance(obj, dict) else \
            sorted(obj, key=id) if isinstance(obj, set) else list(obj)
        out.append((id(obj), type(obj), len(children)))
        stack.extend(reversed(children))
    return out


def refuse_if_written(before: list, fake_args: tuple, fake_kwargs: dict, name: str) -> None:
    """Break if the fake run wrote a container it was given: the copy's write is lost."""
    try:
        after = fingerprint(fake_args, fake_kwargs, name)
    except Unsupported:  # an object it stored there (only a write can put it there)
        after = None
    if after != before:
        raise Unsupported(f"{name}: a list, dict or set it writes into (a Python function of torch, "
                          f"not a graph operation) passed to a torch operation",
                          kind="unsupported-torch-value")
