"""0-d tensors passed as value-only ``Scalar`` arguments (capture/engine/scalar_args.py): the operation
stays in the graph with the real tensor argument (no data-dependent break), results and
mutations equal eager's bit for bit, and operations whose Scalar decides a shape still break."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def addcmul_with_tensor_value(x, y, z, s):
    return x.addcmul_(y, z, value=s), torch.add(y, z, alpha=s)


def test_addcmul_inplace_with_tensor_value():
    h = check(addcmul_with_tensor_value,
              lambda: (torch.randn(2, 2), torch.randn(2, 2), torch.randn(2, 2), torch.tensor(0.3)))
    assert h.breaks == []


def foreach_with_tensor_scalars(x, ys, w):
    a = torch._foreach_pow(x, ys)
    b = torch._foreach_lerp([y.clone() for y in ys], [y * 2 for y in ys], w)
    return a, b


def test_foreach_ops_with_tensor_scalars():
    h = check(foreach_with_tensor_scalars,
              lambda: (torch.tensor(0.8), [torch.rand(3), torch.rand(2)], torch.tensor(0.25)))
    assert h.breaks == []


def integer_scalar_tensor(x, s):
    return torch.add(x, x, alpha=s), x.mul(3).add_(x, alpha=s)


def test_integer_tensor_keeps_integer_results():
    h = check(integer_scalar_tensor, lambda: (torch.arange(4), torch.tensor(3)))
    assert h.breaks == []


def shape_from_scalar(x, n):
    return torch.arange(n) + x.sum()


def test_scalar_that_decides_a_shape_still_breaks():
    h = check(shape_from_scalar, lambda: (torch.randn(3), torch.tensor(4)))
    assert h.breaks
