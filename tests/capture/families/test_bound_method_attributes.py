"""A bound method's attributes read as Python reads them (families/functions.py BoundMethodValue):
``__func__``/``__self__`` its own, the others (``__name__``, ``__qualname__``, ``__doc__``) the
function's; ``super().__ne__`` reaching ``object.__ne__``; f-strings of user objects."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class Thing:
    def __init__(self, n):
        self.n = n

    def method(self):
        """Doc."""
        return self.n

    def __eq__(self, other):
        return isinstance(other, Thing) and other.n == self.n

    def __ne__(self, other):
        return super().__ne__(other)

    def __repr__(self):
        return f"Thing({self.n})"


def attributes(a, b):
    t = Thing(3)
    m = t.method
    return (a + m(), m.__name__, m.__qualname__, m.__doc__, m.__self__ is t, m.__func__ is Thing.method,
            Thing(1) != Thing(1), Thing(1) != Thing(2), f"{t}", f"{t!r}")


def test_bound_method_attributes_and_object_ne_in_one_graph():
    h = check(attributes, lambda: (torch.randn(2), torch.randn(2)))
    assert h.captures == 1 and h.breaks == []
