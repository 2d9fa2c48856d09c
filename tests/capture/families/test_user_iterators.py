"""Iterators written in Python (a class with ``__next__``, ``__iter__`` returning ``self`` or
another such object) made in the compiled function (families/user_objects.py, iterators.py
``advances``): ``for`` loops, ``next`` with and without a default, ``list``/``zip``/``in``
consume them through their ``__next__`` exactly as far as eager does, StopIteration ends a loop
and keeps its own arguments when it reaches user code."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class Count:
    def __init__(self, n):
        self.i = 0
        self.n = n
        self.calls = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.calls += 1
        if self.i >= self.n:
            raise StopIteration("done", self.i)
        self.i += 1
        return self.i


class Countable:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return Count(self.n)


def loops_and_builtins(x):
    c = Count(3)
    for k in c:
        x = x + k
    it = iter(Countable(4))
    first = next(it)
    rest = list(it)
    pairs = list(zip(Count(2), Count(5)))
    searched = Count(5)
    found = 2 in searched
    return x, c.calls, it is iter(it), first, rest, pairs, found, searched.i, next(Count(0), "empty")


def stop_iteration_reaches_the_handler(x):
    c = Count(1)
    next(c)
    try:
        next(c)
    except StopIteration as e:
        return x * 2, e.args
    return x, ()


def _args():
    return (torch.randn(3),)


def test_python_iterators_in_one_graph():
    h = check(loops_and_builtins, _args)
    assert h.breaks == [] and len(h.backend.graphs) == 1


def test_stop_iteration_keeps_its_arguments():
    h = check(stop_iteration_reaches_the_handler, _args)
    assert h.breaks == []


def break_inside_the_loop(x):
    c = Count(3)
    out = []
    for k in c:
        print(end="")  # a graph break with the iterator live on the stack
        out.append(x + k)
    return out, c.i, c.calls


def test_iterator_live_at_a_break_goes_on_in_python():
    h = check(break_inside_the_loop, _args)
    assert h.breaks


def _delegating():
    yield 0
    yield from Count(2)
    yield 10


def yield_from_a_python_iterator(x):
    return [x + k for k in _delegating()]


def test_yield_from_a_python_iterator():
    h = check(yield_from_a_python_iterator, _args)
    assert h.breaks == []


def _delegating_with_result():
    got = yield from Count(1)
    yield got


def yield_from_result(x):
    return [x, *_delegating_with_result()]


def test_yield_from_evaluates_to_the_stop_iteration_value():
    h = check(yield_from_result, _args)
    assert h.breaks == []


def consume_outside(x, it, searched):
    first = next(it)
    rest = [x + k for k in it]
    return first, rest, it.i, next(it, "done"), 3 in searched, searched.i, 9 in searched


def test_iterator_passed_in_advances_for_real():
    h = check(consume_outside, lambda: (torch.randn(2), Count(3), Count(5)))
    assert h.breaks == []
