"""Stores to class attributes (families/class_stores.py): a store event on the class replayed after
the graph in program order; later lookups through the class, instances, ``super()`` and
``Cls.__dict__`` see the stored value."""
from __future__ import annotations

import pytest
import torch

from tests.capture.harness import Harness


class Value:
    """A small autograd engine's node: operator overloads and a class-level counter."""

    count = 0

    def __init__(self, data, children=()):
        self.data = data
        self.prev = tuple(children)
        Value.count += 1
        self.id = Value.count

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other))

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)


def _expression(x):
    a = Value(x)
    b = Value(x * 3)
    c = a * b + 2 * a + 1 - b
    return c.data, c.id, Value.count, type(c).__name__, [p.id for p in c.prev]


def _run_three_calls(fn):
    """Results and the counter after each of three calls, the counter changed between calls."""
    out = []
    for start, x in ((0, torch.arange(3.0)), (10, torch.ones(2)), (0, torch.full((3,), 2.0))):
        Value.count = start
        out.append((fn(x), Value.count))
    return out


def _same(want, got):
    assert len(want) == len(got)
    for (w, wc), (g, gc) in zip(want, got):
        assert wc == gc
        assert torch.equal(w[0], g[0]) and w[1:] == g[1:]


def test_operator_overloads_with_a_class_counter_are_captured_without_breaks():
    want = _run_three_calls(_expression)
    h = Harness()
    got = _run_three_calls(h.compile(_expression))
    _same(want, got)
    assert not h.breaks
    assert h.backend.graphs  # the tensor work ran in graphs


class Counter:
    n = 0
    label = "c"


class SubCounter(Counter):
    def bump(self):
        return super().n


class Holder:
    pass


OUTSIDE = Holder()
OUTSIDE_SUB = SubCounter()


def _reads_after_store(x):
    Counter.n += 1
    made = SubCounter()
    got = [Counter.n, SubCounter.n, made.n, type(made).n, OUTSIDE_SUB.n, made.bump(),
           Counter.__dict__["n"], getattr(Counter, "n", None), Counter.label]
    Counter.n = Counter.n * 10
    got.append(made.n)
    return x + Counter.n, got


def test_every_lookup_after_the_store_sees_it_and_the_store_is_replayed():
    h = Harness()
    fn = h.compile(_reads_after_store)
    for start in (0, 5, 5, 7):
        Counter.n = start
        want = _reads_after_store(torch.zeros(2))
        want_n = Counter.n
        Counter.n = start
        got = fn(torch.zeros(2))
        assert Counter.n == want_n and got[1] == want[1]
        assert torch.equal(got[0], want[0])
    assert not h.breaks
    assert "n" not in SubCounter.__dict__


def test_a_name_a_subclass_or_instance_gains_between_calls_shadows_the_store():
    def f(x):
        Counter.n += 1
        return x + OUTSIDE_SUB.n + SubCounter.n

    h = Harness()
    fn = h.compile(f)
    try:
        Counter.n = 0
        assert torch.equal(fn(torch.zeros(1)), torch.full((1,), 2.0))
        Counter.n = 0
        OUTSIDE_SUB.n = 100  # the instance's own entry now wins
        assert torch.equal(fn(torch.zeros(1)), torch.full((1,), 101.0))
        Counter.n = 0
        SubCounter.n = 50  # the subclass's entry now wins for both reads
        del OUTSIDE_SUB.n
        assert torch.equal(fn(torch.zeros(1)), torch.full((1,), 100.0))
        assert Counter.n == 1
        assert not h.breaks and h.captures == 3
    finally:
        if "n" in SubCounter.__dict__:
            del SubCounter.n
        OUTSIDE_SUB.__dict__.pop("n", None)


def _store_then_index(x, i):
    Counter.n += 1
    return x[i + 1] * 2  # an index computed in the graph, out of range: raises only when the graph runs


def _index_then_store(x, i):
    y = x[i] * 2
    Counter.n += 1
    return y


@pytest.mark.parametrize("fn", [_store_then_index, _index_then_store])
def test_a_run_time_error_leaves_the_counter_as_eager_does(fn):
    h = Harness()
    compiled = h.compile(fn)
    x = torch.arange(4.0)
    for i in (1, 9, 2, 7):
        outcomes = []
        for f in (fn, compiled):
            Counter.n = 3
            try:
                outcomes.append((f(x, torch.tensor([i, 0])), Counter.n))
            except IndexError as exc:
                outcomes.append((type(exc), Counter.n))
        (want, want_n), (got, got_n) = outcomes
        assert want_n == got_n
        assert (torch.equal(want, got) if isinstance(want, torch.Tensor) else want is got)
    # the store is captured; the graph ends before the index only while the store is pending
    assert {b.kind for b in h.breaks} == ({"effects-before-run-time-error"} if fn is _store_then_index else set())


class Meta(type):
    def __setattr__(cls, name, value):
        type.__setattr__(cls, name, value * 2)


class Doubled(metaclass=Meta):
    n = 1


class WithMethod:
    n = 0

    def method(self):
        return 1


@pytest.mark.parametrize("store", [
    lambda: setattr(WithMethod, "fresh_name", 1),  # a name the class body does not define
    lambda: setattr(WithMethod, "method", 3),  # replaces a method
    lambda: setattr(WithMethod, "n", lambda self: 1),  # stores a function (a descriptor)
    lambda: setattr(Doubled, "n", 5),  # a metaclass __setattr__
])
def test_stores_not_modelled_break_with_their_kind_and_run_in_python(store):
    def f(x):
        y = x + 1
        store()
        return y * 2

    saved = {k: dict(vars(k)) for k in (WithMethod, Doubled)}
    h = Harness()
    try:
        out = h.compile(f)(torch.ones(2))
        assert torch.equal(out, torch.full((2,), 4.0))
        assert {b.kind for b in h.breaks} == {"class-attribute-store"}
        assert WithMethod.__dict__.get("fresh_name", 1) == 1 and Doubled.n in (1, 10)
    finally:
        for klass, state in saved.items():
            for name in set(vars(klass)) - set(state):
                delattr(klass, name)
            for name in ("n", "method"):
                if name in state:
                    type.__setattr__(klass, name, state[name])


class Plain:
    pass


ONE = Value(torch.ones(2))


def _unary_of_an_outside_object(x):
    return (-ONE).data + x, Value.count


def test_unary_operators_of_objects_from_outside_run_the_class_method():
    h = Harness()
    compiled = h.compile(_unary_of_an_outside_object)
    for start in (0, 3):
        Value.count = start
        want = _unary_of_an_outside_object(torch.ones(2))
        Value.count = start
        got = compiled(torch.ones(2))
        assert torch.equal(want[0], got[0]) and want[1] == got[1] == Value.count
    assert not h.breaks


def _negate_plain(x):
    return -Plain()


def test_a_unary_operator_the_class_lacks_raises_pythons_type_error():
    h = Harness()
    with pytest.raises(TypeError) as want:
        _negate_plain(torch.ones(1))
    with pytest.raises(TypeError) as got:
        h.compile(_negate_plain)(torch.ones(1))
    assert str(got.value) == str(want.value)
    assert {b.kind for b in h.breaks} == {"python-exception"}


class Base:
    made = 0

    def __init__(self):
        type(self).made += 1  # a subclass gets an entry of its own at its first store


class Derived(Base):
    def base_made(self):
        return super().made  # Derived's own entry when the call stored one, else Base's


class Leaf(Derived):
    def through_super(self):
        return super().made


def _per_class_counts(x):
    a, b, c = Base(), Derived(), Derived()
    leaf = Leaf.__new__(Leaf)
    return (x + Base.made + 10 * Derived.made, a.made, b.made, c.made, "made" in Derived.__dict__,
            b.base_made(), leaf.through_super())


def test_a_store_through_type_self_gives_the_subclass_its_own_entry():
    h = Harness()
    compiled = h.compile(_per_class_counts)
    try:
        for start in (0, 4):
            Base.made = start
            if "made" in Derived.__dict__:
                del Derived.made
            want = _per_class_counts(torch.zeros(1))
            want_counts = (Base.made, Derived.made)
            del Derived.made
            Base.made = start
            got = compiled(torch.zeros(1))
            assert (Base.made, Derived.made) == want_counts and torch.equal(want[0], got[0]) and want[1:] == got[1:]
            del Derived.made
        assert not h.breaks
    finally:
        if "made" in Derived.__dict__:
            del Derived.made
