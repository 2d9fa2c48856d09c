"""Functions, closures, cells and generators made during capture that are still in use at a
graph break (families/functions.py, families/user_objects.py, capture/engine/codegen.py): rebuilt in the
transformed code (cells shared with the resume function), nonlocal and function-attribute stores
replayed, and a generator that already started moves the break to where it was made."""
from __future__ import annotations

import pytest
import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


def brk(x):
    """A call capture cannot keep in a graph."""
    print(end="")
    return x


def compiled_and_eager(fn, *args):
    h = Harness()
    out = h.compile(fn)(*args)
    ref = fn(*args)
    return ref, out, h


def assert_compiled_around_the_break(h):
    assert h.breaks
    assert len(h.backend.graphs) >= 2, "code before and after the break should be in graphs"
    assert not any("live at a graph break" in b.reason for b in h.breaks)


def c_lambda(x):
    g = lambda t: t + 1  # noqa: E731
    y = brk(x * 2)
    return g(y) * 3


def c_closure_cell_written_after_break(x):
    k = 2

    def scale(y):
        return y * k
    y = brk(x * 2)
    k = 3  # the closure sees this store: the cell is shared across the break
    return scale(y), scale(x)


def c_nonlocal_counter(x):
    n = 0

    def bump():
        nonlocal n
        n += 1
        return n
    bump()
    y = brk(x * 2)
    bump()
    return y * n, bump(), n


def c_recursive(x):
    def power(y, i):
        return y if i == 0 else power(y * 2, i - 1)
    y = brk(x + 1)
    return power(y, 3) * 2


def c_defaults(x):
    def h(y, k=2, *, m=3) -> torch.Tensor:
        """doc of h"""
        return y * k + m
    y = brk(x * 2)
    return h(y), h.__defaults__, h.__kwdefaults__, h.__name__, h.__qualname__, h.__doc__, \
        h.__annotations__ == {"return": torch.Tensor}


@pytest.mark.parametrize("fn", [c_lambda, c_closure_cell_written_after_break, c_nonlocal_counter, c_recursive,
                                c_defaults])
def test_function_made_during_capture_survives_a_break(fn):
    x = torch.randn(3)
    ref, out, h = compiled_and_eager(fn, x)
    assert_same(ref, out)
    assert_compiled_around_the_break(h)


def c_returns_closure(x):
    k = x.sum()

    def get():
        return k
    y = brk(x * 2)
    return y, get


def test_closure_returned_after_a_break_is_a_real_function():
    x = torch.randn(3)
    ref, out, h = compiled_and_eager(c_returns_closure, x)
    assert_same(ref[0], out[0])
    assert out[1].__qualname__ == ref[1].__qualname__
    assert_same(ref[1](), out[1]())


def make_accumulator():
    total = torch.zeros(3)
    calls = 0

    def add(x):
        nonlocal total, calls
        total = total + x
        calls += 1
        y = brk(total * 2)
        return y + calls
    return add


def test_nonlocal_stores_into_real_cells_are_replayed():
    eager, compiled = make_accumulator(), make_accumulator()
    h = Harness()
    f = h.compile(compiled)
    for _ in range(3):
        x = torch.randn(3)
        assert_same(eager(x), f(x))
    cells = {n: c.cell_contents for n, c in zip(compiled.__code__.co_freevars, compiled.__closure__)}
    ref = {n: c.cell_contents for n, c in zip(eager.__code__.co_freevars, eager.__closure__)}
    assert cells["calls"] == ref["calls"] == 3
    assert_same(ref["total"], cells["total"])
    assert len(h.backend.graphs) >= 2


def counted(x):
    return x * 2


counted.calls = 0


def c_function_attribute(x):
    counted.calls = counted.calls + 1
    y = counted(x)
    y = brk(y)
    return y + counted.calls


def test_function_attribute_stores_are_replayed():
    counted.calls = 0
    x = torch.randn(3)
    ref = c_function_attribute(x)
    assert counted.calls == 1
    counted.calls = 0
    h = Harness()
    out = h.compile(c_function_attribute)(x)
    assert_same(ref, out)
    assert counted.calls == 1
    assert len(h.backend.graphs) >= 2


def c_nested_function_attribute(x):
    def g(y):
        return y * g.scale
    g.scale = 3
    y = brk(x * 2)
    return g(y), g.scale


def test_attributes_of_a_function_made_during_capture_survive_a_break():
    x = torch.randn(3)
    ref, out, h = compiled_and_eager(c_nested_function_attribute, x)
    assert_same(ref, out)
    assert_compiled_around_the_break(h)


def squares(x, n):
    for i in range(n):
        yield x * i


def c_unstarted_generator(x):
    g = squares(x, 3)
    y = brk(x * 2)
    return y + sum(g)


def test_generator_not_started_at_the_break_is_made_again():
    x = torch.randn(3)
    ref, out, h = compiled_and_eager(c_unstarted_generator, x)
    assert_same(ref, out)
    assert h.breaks and len(h.backend.graphs) >= 1


def c_started_generator(x):
    y = x * 2
    g = squares(y, 3)
    first = next(g)
    z = brk(y + first)
    return z + sum(g)


def test_started_generator_moves_the_break_to_where_it_was_made():
    x = torch.randn(3)
    ref, out, h = compiled_and_eager(c_started_generator, x)
    assert_same(ref, out)
    assert any("graph breaks earlier" in b.reason and "generator" in b.reason for b in h.breaks)
    assert h.results[0].transformed_code is not None  # the code before the generator is compiled
