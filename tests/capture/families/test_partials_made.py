"""``functools.partial`` objects created inside compiled code (families/partials.py)."""
from __future__ import annotations

import functools

import pytest
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def one():
    return (torch.randn(3),)


def scale(x, y, *, k=1, m=0):
    return x * y * k + m


def stored_args_then_call_args(x):
    p = functools.partial(scale, x, k=2, m=1)
    return p(3), p(4, m=5), p(y=2)


def torch_function_partial(x):
    return functools.partial(torch.clip, min=0.0, max=1.0)(x), functools.partial(torch.mul, other=x)(x)


def partial_of_a_lambda(x):
    mul = lambda a, b: a * b  # noqa: E731
    return functools.partial(mul, b=3)(x)


def nested_partials_flatten(x):
    inner = functools.partial(scale, x, k=2)
    outer = functools.partial(inner, 5, m=1)
    return outer(), outer.func is scale, outer.args[1], sorted(outer.keywords), inner.func is scale


def attributes_and_types(x):
    p = functools.partial(scale, x)
    p.tag = 7
    return p.tag, isinstance(p, functools.partial), callable(p), p.__dict__["tag"], p(2)


def partial_needs_a_callable(x):
    return functools.partial(3)(x)


@pytest.mark.parametrize("fn", [stored_args_then_call_args, torch_function_partial, partial_of_a_lambda,
                                nested_partials_flatten, attributes_and_types])
def test_made_partials_match_eager_in_one_graph(fn):
    h = check(fn, one)
    assert h.breaks == [], [str(b) for b in h.breaks]
    assert len(h.backend.graphs) == 1


@pytest.mark.parametrize("name", ["func", "args", "keywords", "__call__", "__dict__", "__reduce__",
                                  "__name__", "__qualname__", "__code__", "missing"])
def test_hasattr_answers_like_the_c_type(name):
    def fn(x):
        p = functools.partial(lambda a, b: a + b, b=x)
        return p(x) if hasattr(p, name) else x * 0
    h = check(fn, one)
    assert h.breaks == []


def test_a_partial_needs_a_callable_raises_typeerror_natively():
    check(partial_needs_a_callable, one)


def test_a_partial_live_at_a_break_is_rebuilt_fresh_per_call():
    def fn(x):
        p = functools.partial(scale, x, k=3)
        print("graph break")
        return p(2), p

    h = Harness()
    f = h.compile(fn)
    x = torch.randn(3)
    (y1, p1), (_y2, p2) = f(x), f(x)
    torch.testing.assert_close(y1, fn(x)[0])
    assert type(p1) is functools.partial and p1 is not p2
    assert p1.func is scale and p1.args[0] is x and p1.keywords == {"k": 3}
    assert len(h.breaks) == 1
