"""Whether an unused graph op may still raise: the kernel's dtype check only a real run makes.

A fake (meta) kernel checks sizes and devices but often not dtypes: ``t.bitwise_not()`` of a
float tensor passes the fake run and raises only in the real CPU kernel. Eager raises that
error even when the result is unused, so dead-code elimination may drop an unused op only
once a real run of the same op, on one-element tensors of the same dtypes and devices, passes.
Anything the probe cannot build or run keeps the op (the graph then raises what eager raises).
Ops with effects (random draws, writes) are kept by their effects and never probed here.
"""
from __future__ import annotations

import torch
import torch.fx


class _CannotProbe(Exception):
    pass


def _probe_tensor(node: torch.fx.Node) -> torch.Tensor:
    value = node.meta.get("example_value")
    if not isinstance(value, torch.Tensor) or value.layout is not torch.strided or value.is_quantized:
        raise _CannotProbe
    return torch.ones([1] * value.dim(), dtype=value.dtype, device=value.device)


def _real(arg):
    if isinstance(arg, torch.fx.Node):
        return _probe_tensor(arg)
    if isinstance(arg, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        raise _CannotProbe
    return arg


def may_raise_unused(node: torch.fx.Node) -> bool:
    """Whether the unused ``node`` may raise in the real run (True when the probe cannot tell)."""
    cached = node.meta.get("unused_may_raise")
    if cached is None:
        cached = node.meta["unused_may_raise"] = _probe(node)
    return cached


def _probe(node: torch.fx.Node) -> bool:
    if node.op == "get_attr" or not isinstance(node.meta.get("example_value"), torch.Tensor):
        return False  # a parameter read, or a getitem/size of a result: nothing runs a kernel
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    try:
        with unset_fake_temporarily(), torch.no_grad():
            args = torch.fx.node.map_aggregate(node.args, _real)
            kwargs = torch.fx.node.map_aggregate(node.kwargs, _real)
            if node.op == "call_method":
                getattr(args[0], node.target)(*args[1:], **kwargs)
            elif node.op == "call_function":
                node.target(*args, **kwargs)
            else:
                return True
    except Exception:  # noqa: BLE001 - it raises, or the probe cannot tell: keep the op
        return True
    return False
