"""``issubclass`` on classes and the names of builtin methods are answered at capture with the
real operation on the real objects (families/builtins.py ``_issubclass``,
``BuiltinMethodValue.getattr``): ``unittest``'s ``assertRaises`` machinery uses both."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class Mine(ValueError):
    pass


def subclass_tests(x):
    a = issubclass(Mine, ValueError)
    b = issubclass(TypeError, (KeyError, Exception))
    c = issubclass(KeyError, Mine)
    return x + 1, a, b, c


def test_issubclass_of_known_classes():
    h = check(subclass_tests, lambda: (torch.randn(3),))
    assert h.breaks == []


def method_names(x):
    items = [1, 2]
    pair = (1, 2)
    return x * 2, items.append.__name__, pair.count.__qualname__, "ab".upper.__name__


def test_names_of_builtin_methods():
    h = check(method_names, lambda: (torch.randn(3),))
    assert h.breaks == []
