"""0-d tensors passed where an operation takes a ``Scalar`` that only scales values.

``x.addcmul_(y, z, value=t)`` or ``torch._foreach_lerp_(xs, ys, t)`` with a 0-d tensor ``t``
convert it with ``.item()`` inside the kernel: fake tensors cannot, so capture would call the
operation data-dependent. For the operations listed here the Scalar only scales or offsets
values (alpha, beta, value, weight, exponent): the result's shape and dtype are the same for
any Python number of the same kind (bool/int/float/complex) as the tensor's item. The fake
result is computed with such a number in its place; the graph node keeps the real tensor, so
the compiled call runs exactly the operation eager runs.
"""
from __future__ import annotations

from typing import Any

import torch

# base names (no trailing ``_``, no ``_foreach_`` prefix) of operations whose Scalar arguments
# affect values only (torch._dynamo keeps the same family in ``ops_consuming_unbacked_scalars``)
_VALUE_ONLY_SCALARS = frozenset({
    "add", "sub", "mul", "div", "addmm", "addmv", "addr", "addbmm", "baddbmm", "addcmul", "addcdiv",
    "lerp", "pow", "clamp_max", "clamp_min", "maximum", "minimum",
})


def _base_name(target: Any) -> str | None:
    name = target if isinstance(target, str) else getattr(target, "__name__", None)
    if not isinstance(name, str):
        return None
    if not isinstance(target, str) and not (getattr(target, "__module__", "") or "").startswith("torch"):
        return None
    name = name.rstrip("_") if name.endswith("_") and not name.endswith("__") else name
    if name.startswith("_foreach_"):
        name = name[len("_foreach_"):]
    return name


def _placeholder(t: torch.Tensor) -> Any:
    if t.dtype is torch.bool:
        return True
    if t.dtype.is_complex:
        return 1j
    if t.dtype.is_floating_point:
        return 1.0
    return 1


def with_scalar_placeholders(target: Any, args: tuple, kwargs: dict, *, method: bool = False
                             ) -> tuple[tuple, dict] | None:
    """Fake arguments with each top-level 0-d tensor (but a method's ``self``) replaced by a
    number of its kind, or None when ``target`` is not an operation whose Scalars affect values
    only (or nothing changes)."""
    if _base_name(target) not in _VALUE_ONLY_SCALARS:
        return None

    def swap(a):
        return _placeholder(a) if isinstance(a, torch.Tensor) and a.dim() == 0 else a

    new_args = tuple(a if method and i == 0 else swap(a) for i, a in enumerate(args))
    new_kwargs = {k: swap(v) for k, v in kwargs.items()}
    if all(a is b for a, b in zip(new_args, args)) and all(new_kwargs[k] is kwargs[k] for k in kwargs):
        return None
    return new_args, new_kwargs
