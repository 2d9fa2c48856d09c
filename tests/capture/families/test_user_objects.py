"""User-defined class instances made during capture, super(), generators (families/user_objects.py).

Each test compiles a small function with the capture harness, checks it ran in
one graph without breaks where the construct is supported, and compares with eager.
"""
from __future__ import annotations

import collections
import collections.abc
import dataclasses

import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


def _run(fn, *args, breaks: int = 0):
    h = Harness()
    compiled = h.compile(fn)
    out = compiled(*args)
    assert_same(fn(*args), out)
    assert len(h.breaks) == breaks, [b.reason for b in h.breaks]
    return h, out


class Point:
    scale = 2.0

    def __init__(self, x, y):
        self.x = x
        self.y = y

    @property
    def norm(self):
        return (self.x * self.x + self.y * self.y).sqrt()

    def scaled(self):
        return self.x * self.scale


def test_plain_object_attributes_property_and_method():
    def f(a, b):
        p = Point(a, b)
        return p.norm + p.scaled()
    h, _ = _run(f, torch.randn(3), torch.randn(3))
    assert len(h.backend.graphs) == 1


def test_object_returned_is_rebuilt_with_its_state():
    def f(a):
        p = Point(a + 1, a * 2)
        p.extra = a.sum()
        return p
    h = Harness()
    a = torch.randn(4)
    out = h.compile(f)(a)
    ref = f(a)
    assert type(out) is Point and not h.breaks
    assert_same((ref.x, ref.y, ref.extra), (out.x, out.y, out.extra))


class Logged:
    def __init__(self):
        self.log = []

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name != "log":
            self.log.append(name)


def test_user_setattr_runs():
    def f(a):
        o = Logged()
        o.w = a * 3
        return o.w, len(o.log)
    _run(f, torch.randn(2))


class Table:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        return self.t[i] * 10

    def __len__(self):
        return self.t.shape[0]

    def __call__(self, x):
        return x + self.t

    def __getattr__(self, name):
        return name + "!"


def test_getitem_len_call_and_getattr_fallback():
    def f(a):
        t = Table(a)
        return t[1] + t(a).sum() + len(t), t.anything
    _run(f, torch.randn(3))


@dataclasses.dataclass
class Out:
    value: torch.Tensor
    aux: torch.Tensor | None = None

    def __post_init__(self):
        if self.aux is None:
            self.aux = self.value * 0


def test_dataclass_with_post_init():
    def f(a):
        o = Out(a.relu())
        return o.value + o.aux, dataclasses.fields(o)[0].name
    _run(f, torch.randn(5))


class Output(collections.OrderedDict):
    """A ModelOutput-like OrderedDict subclass: keys mirror non-None fields."""

    def __init__(self, **kwargs):
        super().__init__()
        for k, v in kwargs.items():
            if v is not None:
                self[k] = v

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


def test_ordered_dict_subclass_like_model_output():
    def f(a):
        o = Output(logits=a * 2, loss=None, hidden=a + 1)
        return o.logits + o["hidden"], o.to_tuple(), o
    h, out = _run(f, torch.randn(3))
    assert type(out[2]) is Output and list(out[2].keys()) == ["logits", "hidden"]
    assert len(h.backend.graphs) == 1


class Base:
    def forward(self, x):
        return x + 1


class Child(Base):
    def forward(self, x):
        return super().forward(x) * 2


def test_zero_argument_super():
    def f(a):
        return Child().forward(a)
    _run(f, torch.randn(3))


def test_generator_expression_consumed_by_tuple_all_and_for():
    def f(a):
        parts = tuple(a * i for i in range(3))
        ok = all(p.shape == a.shape for p in parts)
        total = a
        for p in (q + 1 for q in parts):
            total = total + p
        return total, ok
    _run(f, torch.randn(3))


def gen(a, n):
    for i in range(n):
        yield a + i


def test_generator_function_runs_lazily_with_next():
    def f(a):
        g = gen(a, 3)
        first = next(g)
        rest = list(g)
        return first, rest
    _run(f, torch.randn(2))


class Slotted:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


def test_class_with_slots_is_modelled():  # more in test_slots_objects.py
    def f(a):
        return Slotted(a).v + 1
    _run(f, torch.randn(2), breaks=0)


def test_all_and_any_stop_consuming_a_generator_like_python():
    def f(a, xs):
        seen = []
        ok = any(seen.append(x) or x > 1 for x in xs)
        return a * len(seen), ok

    _run(f, torch.randn(2), [0, 2, 5, 7])


def test_object_live_across_a_graph_break_is_rebuilt_once():
    def f(a):
        p = Point(a + 1, a * 2)
        q = [p, p]
        print("break")
        return q[0] is q[1], q[0].x + q[1].y

    _run(f, torch.randn(3), breaks=1)


class Layers(collections.abc.Sequence):
    """Iterated by Sequence.__iter__: index until the user __getitem__ raises IndexError."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError("list index out of range")
        return i * 2


def test_sequence_protocol_iteration_ends_on_index_error():
    def f(a):
        total = a
        for k in Layers(3):
            total = total + k
        return total

    _run(f, torch.randn(2))


class _Called:
    def __call__(self):
        return 1


def test_callable_of_objects_made_in_the_function_follows_their_class():
    def f(a):
        return a + 1, callable(Point(a, a)), callable(_Called()), callable([a]), callable((1, a))
    _, out = _run(f, torch.randn(3))
    assert out[1:] == (False, True, False, False)
