"""Comparing compiled results with eager the way the field does.

allclose first; failing that, the compiled result's RMSE against an fp64 reference
must be within a small multiple of the eager result's RMSE.
"""
from __future__ import annotations

from typing import Any

import torch


def flatten(value: Any) -> list[Any]:
    """Leaves of nested tuples/lists/dicts (incl. ModelOutput) in a stable order."""
    if isinstance(value, torch.Tensor) or value is None or isinstance(value, (int, float, bool, str)):
        return [value]
    if isinstance(value, dict):
        return [leaf for key in value for leaf in flatten(value[key])]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flatten(item)]
    if hasattr(value, "to_tuple"):
        return flatten(value.to_tuple())
    if hasattr(value, "__dict__") and not callable(value):
        # plain objects holding tensors (e.g. a KV cache): compare their state
        state = vars(value)
        return [type(value).__name__] + [leaf for key in sorted(state) for leaf in flatten(state[key])]
    return [value]


def _rmse(a: torch.Tensor, ref: torch.Tensor) -> float:
    return torch.sqrt(torch.mean((a.double() - ref.double()) ** 2)).item()


def same(eager: Any, compiled: Any, *, reference: Any = None, atol: float = 1e-4,
         rtol: float = 1e-4, rmse_factor: float = 3.0) -> tuple[bool, str]:
    """Whether ``compiled`` matches ``eager``; the string says where it does not."""
    left, right = flatten(eager), flatten(compiled)
    refs = flatten(reference) if reference is not None else [None] * len(left)
    if len(left) != len(right):
        return False, f"{len(left)} eager leaves vs {len(right)} compiled leaves"
    for index, (a, b, ref) in enumerate(zip(left, right, refs)):
        if isinstance(a, torch.Tensor) != isinstance(b, torch.Tensor):
            return False, f"leaf {index}: {type(a).__name__} vs {type(b).__name__}"
        if not isinstance(a, torch.Tensor):
            if a != b:
                return False, f"leaf {index}: {a!r} != {b!r}"
            continue
        if a.shape != b.shape or a.dtype != b.dtype:
            return False, f"leaf {index}: {tuple(a.shape)} {a.dtype} vs {tuple(b.shape)} {b.dtype}"
        if torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True):
            continue
        if ref is not None and a.is_floating_point():
            if _rmse(b, ref) <= rmse_factor * max(_rmse(a, ref), 1e-12):
                continue
        diff = (a.double() - b.double()).abs().max().item()
        return False, f"leaf {index}: max abs difference {diff:.3g}"
    return True, "equal"


def assert_same(eager: Any, compiled: Any, **kwargs: Any) -> None:
    ok, why = same(eager, compiled, **kwargs)
    assert ok, why
