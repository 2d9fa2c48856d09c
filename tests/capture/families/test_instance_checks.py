"""``isinstance``/``issubclass`` follow CPython's protocol (families/instance_checks.py): a
metaclass's Python ``__instancecheck__``/``__subclasscheck__`` decides (inlined, its result
truth-tested), an exact type match never asks it, and the legacy tensor types
(``torch.LongTensor``, ...) compare dtype, layout and device as eager does, for tensors made
in the graph too."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class AcceptAll(type):
    def __instancecheck__(cls, instance):
        return 1  # truth-tested by Python


class RejectOthers(type):
    def __instancecheck__(cls, instance):
        return False

    def __subclasscheck__(cls, subclass):
        return subclass is int


class Anything(metaclass=AcceptAll):
    pass


class Base:
    pass


class Picky(Base, metaclass=RejectOthers):
    pass


class PickyChild(Picky):
    pass


FLOAT_OR_ANYTHING = float | Anything


def instance_tests(x, n, picky, child):
    return (x + 1, isinstance(n, Anything), isinstance(x, Anything), isinstance([x], (str, Anything)),
            isinstance(picky, Picky), isinstance(child, Picky), isinstance(child, Base),
            isinstance(n, FLOAT_OR_ANYTHING))


def test_metaclass_instancecheck_decides():
    h = check(instance_tests, lambda: (torch.randn(2), 3, Picky(), PickyChild()))
    assert h.breaks == []


def subclass_tests(x):
    return x * 2, issubclass(int, Picky), issubclass(float, Picky), issubclass(float, (Picky, float)), \
        issubclass(PickyChild, Picky)


def test_metaclass_subclasscheck_decides():
    h = check(subclass_tests, lambda: (torch.randn(2),))
    assert h.breaks == []


def legacy_types(x):
    made = torch.tensor([1, 2])
    longs = x.long()
    halves = x.half()
    return (x + 1, isinstance(made, torch.LongTensor), isinstance(longs, torch.LongTensor),
            isinstance(longs, torch.IntTensor), isinstance(x, torch.FloatTensor), isinstance(x, torch.DoubleTensor),
            isinstance(halves, torch.HalfTensor), isinstance(longs, torch.cuda.LongTensor),
            isinstance(x.bool(), torch.BoolTensor), isinstance(made, (torch.FloatTensor, torch.LongTensor)))


def test_legacy_tensor_types_of_graph_tensors():
    h = check(legacy_types, lambda: (torch.randn(2),))
    assert h.breaks == []
