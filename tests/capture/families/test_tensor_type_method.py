"""``x.type(torch.HalfTensor)`` with a legacy tensor type class (families/tensors.py): the class
goes into the graph as the dotted name ``Tensor.type`` imports back to the same class."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def convert_by_type_class(a, b):
    m = a.type(torch.HalfTensor)
    return b.type(m.type()), m, a.type(torch.DoubleTensor).dtype, a.type()


def test_type_with_a_tensor_type_class():
    h = check(convert_by_type_class, lambda: (torch.randn(3), torch.randn(3)))
    assert h.breaks == []
