"""``id(obj)`` in compiled code (families/object_ids.py): ``id(a) == id(b)`` is ``a is b``
(guarded for objects from outside), a kept or returned id is the real one computed after the
graph, and any other use of the number breaks as before."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def ids_compared(x, a, b):
    p = frozenset("abc")
    made = [x]
    return (x + 1, id(p) == id(p.copy()), id(a) == id(b), id(a) != id(x), id(made) == id(made),
            id(made) != id([x]))


class Token:
    """An object the checks' argument copying keeps as it is (one object stays one)."""

    def __copy__(self):
        return self


def test_id_equality_is_identity_in_one_graph():
    shared = Token()
    h = check(ids_compared, lambda: (torch.randn(2), shared, shared))
    assert h.breaks == [] and len(h.backend.graphs) == 1


def test_identity_of_outside_objects_is_guarded():
    h = Harness()
    compiled = h.compile(ids_compared)
    x, o = torch.randn(2), object()
    assert compiled(x, o, o)[2] is True
    assert compiled(x, o, object())[2] is False
    assert compiled(x, o, o)[2] is True
    assert h.captures == 2


def returns_an_id(x):
    made = [x * 2]
    return made, id(made), id(x)


def test_returned_id_is_the_real_objects_address():
    h = Harness()
    x = torch.randn(3)
    made, made_id, x_id = h.compile(returns_an_id)(x)
    assert made_id == id(made) and x_id == id(x)
    assert h.breaks == []


def id_as_a_number(x):
    return x + (id(x) % 2 == 2)


def test_arithmetic_on_an_id_breaks():
    h = check(id_as_a_number, lambda: (torch.randn(2),))
    assert len(h.breaks) == 1 and "id() of" in h.breaks[0].reason
