"""Generators from outside the capture that have not started are run by the capture from their
arguments; the real one is closed when the model finished it, and a break moves to the call that
first ran it when the model would leave it paused (families/outside_generators.py). A generator
made in the call and left paused is rebuilt unstarted at the call that first ran it."""
from __future__ import annotations

import pytest
import torch

from tests.capture.harness import Harness


def counting():
    yield 1
    yield 2
    yield 3


def shifted(t):
    yield t + 1
    yield t + 2
    yield t + 3


def test_exhausted_argument_generator_is_captured_and_closed():
    def f(t, g):
        acc = t
        for x in g:
            acc = acc + x
        return acc

    h = Harness(fullgraph=True)
    c = h.compile(f)
    t = torch.randn(3)
    for _ in range(2):
        g = shifted(t)
        torch.testing.assert_close(c(t, g), f(t, shifted(t)))
        with pytest.raises(StopIteration):
            next(g)  # the real generator is finished, as Python leaves it
    assert h.captures == 1 and not h.breaks


def test_sum_of_argument_generator_of_constants():
    def f(t, g):
        return t * sum(g)

    h = Harness(fullgraph=True)
    c = h.compile(f)
    g = counting()
    torch.testing.assert_close(c(torch.ones(2), g), torch.full((2,), 6.0))
    assert list(g) == []


def test_argument_generator_left_paused_is_advanced_by_python():
    def f(t, g):
        return t + next(g)

    h = Harness(fullgraph=True)
    c = h.compile(f)
    g = counting()
    torch.testing.assert_close(c(torch.zeros(2), g), torch.ones(2))
    assert next(g) == 2  # Python's own next() ran on the real generator
    g = counting()
    torch.testing.assert_close(c(torch.zeros(2), g), torch.ones(2))
    assert list(g) == [2, 3]


def test_started_argument_generator_is_not_run_by_the_capture():
    def f(t, g):
        return t + next(g)

    c = Harness().compile(f)
    g = counting()
    next(g)
    torch.testing.assert_close(c(torch.zeros(2), g), torch.full((2,), 2.0))
    assert next(g) == 3


def test_exception_leaving_argument_generator_finishes_the_real_one():
    def failing():
        yield 1
        raise ValueError("boom")

    def f(t, g):
        try:
            for x in g:
                t = t + x
        except ValueError:
            t = t * 10
        return t

    c = Harness(fullgraph=True).compile(f)
    g = failing()
    torch.testing.assert_close(c(torch.zeros(2), g), torch.full((2,), 10.0))
    with pytest.raises(StopIteration):
        next(g)


def test_generator_made_and_returned_started():
    def f(t):
        gen = shifted(t)
        next(gen)
        return gen

    c = Harness(fullgraph=True).compile(f)
    t = torch.tensor([1.0])
    gen = c(t)
    assert type(gen) is type(shifted(t))
    assert [v.item() for v in gen] == [3.0, 4.0]


def test_generator_paused_in_finally_runs_it_when_the_function_returns():
    closed = []

    def guarded(t):
        try:
            yield t
            yield t
        finally:
            closed.append(1)

    def f(t):
        gen = guarded(t)
        next(gen)
        return t * 2

    c = Harness(fullgraph=True).compile(f)
    torch.testing.assert_close(c(torch.ones(2)), torch.full((2,), 2.0))
    assert closed == [1]
