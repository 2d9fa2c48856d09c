"""``del obj.attr`` on an object from outside the capture (families/objects.py, side_effects.py):
recorded and replayed after the graph in order with attribute stores, no graph break; later
reads see the attribute gone (the class's attribute, a default, AttributeError), and an absent
attribute raises AttributeError as in Python."""
from __future__ import annotations

import contextlib

import pytest
import torch

from tests.capture.harness import Harness


class Box:
    kind = "class"

    def __init__(self):
        self.a = 1
        self.kind = "instance"
        self.args = (1, 2)

    def total(self):
        return 10


class OnceContext:
    """A context manager that forgets its arguments on entry (contextlib's style)."""

    def __init__(self, scale):
        self.scale = scale

    def __enter__(self):
        scale = self.scale
        del self.scale
        return scale

    def __exit__(self, *exc):
        return False


def test_delete_then_reads_see_the_class_attribute_and_defaults():
    def f(x, o):
        del o.a
        y = x + 1
        found = getattr(o, "a", 5)
        del o.kind
        return y + found + len(o.kind) + o.total(), hasattr(o, "a")

    h = Harness()
    box = Box()
    out, has = h.compile(f)(torch.ones(1), box)
    assert not h.breaks
    assert torch.equal(out, torch.full((1,), 2.0 + 5 + 5 + 10)) and has is False
    assert "a" not in box.__dict__ and "kind" not in box.__dict__ and box.kind == "class"


def test_deletes_and_stores_replay_in_program_order():
    def f(x, o):
        o.a = 2
        del o.a
        o.b = 3
        del o.args
        o.args = x.sum()
        return x * o.b

    h = Harness()
    box = Box()
    out = h.compile(f)(torch.ones(2), box)
    assert not h.breaks
    assert torch.equal(out, torch.full((2,), 3.0))
    assert "a" not in box.__dict__ and box.b == 3 and torch.equal(box.args, torch.tensor(2.0))


def test_delete_of_an_absent_attribute_raises_attribute_error():
    def f(x, o):
        y = x + 1
        del o.missing
        return y

    with pytest.raises(AttributeError) as plain:
        f(torch.ones(1), Box())
    h = Harness()
    with pytest.raises(AttributeError) as compiled:
        h.compile(f)(torch.ones(1), Box())
    assert str(compiled.value) == str(plain.value)


def test_delete_twice_raises_attribute_error():
    def f(x, o):
        del o.a
        del o.a
        return x

    box = Box()
    h = Harness()
    with pytest.raises(AttributeError):
        h.compile(f)(torch.ones(1), box)
    assert "a" not in box.__dict__


def test_an_object_without_the_attribute_on_a_later_call_raises():
    def f(x, o):
        del o.a
        return x + 1

    h = Harness()
    compiled = h.compile(f)
    box = Box()
    compiled(torch.ones(1), box)
    with pytest.raises(AttributeError):
        compiled(torch.ones(1), box)  # deleted by the first call: the presence guard fails
    assert "a" not in box.__dict__


def test_enter_that_deletes_its_arguments_and_the_instance_dict_after_it():
    def f(x, ctx):
        with ctx as scale:
            y = x * scale
        return y, len(vars(ctx))

    h = Harness()
    ctx = OnceContext(3.0)
    y, n = h.compile(f)(torch.ones(2), ctx)
    assert torch.equal(y, torch.full((2,), 3.0)) and n == 0
    assert not hasattr(ctx, "scale")
    assert not [b for b in h.breaks if "del" in b.reason]


def test_contextmanager_made_in_the_call_deletes_its_arguments():
    @contextlib.contextmanager
    def scaled(x):
        yield x * 2

    def f(x):
        with scaled(x) as y:
            z = y + 1
        return z

    h = Harness()
    out = h.compile(f)(torch.ones(2))
    assert torch.equal(out, torch.full((2,), 3.0))
    assert not h.breaks
