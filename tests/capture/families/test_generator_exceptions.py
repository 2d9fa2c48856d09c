"""Exceptions that leave a generator's frame during capture: the generator is finished
afterwards, and a StopIteration becomes a RuntimeError (PEP 479), as in Python."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def one(*shape):
    return lambda: (torch.randn(*shape),)


def stop_iteration_raised_in_body(t):
    def gen():
        yield t + 1
        raise StopIteration("boom")

    g = gen()
    next(g)
    try:
        next(g)
    except RuntimeError as e:
        return t + 1.0, str(e)
    except StopIteration:
        return t + 2.0
    return t


def stop_iteration_leaking_from_inner_next(t):
    def inner():
        yield t + 1

    def gen():
        it = inner()
        while True:
            yield next(it)

    g = gen()
    next(g)
    try:
        next(g)
    except RuntimeError:
        return t + 1.0
    except StopIteration:
        return t + 2.0
    return t


def generator_finished_after_an_exception(t):
    def gen():
        yield 1 // 0
        yield 42

    g = gen()
    try:
        next(g)
    except ZeroDivisionError:
        pass
    return t + next(g, -1)


def test_stop_iteration_in_body_becomes_runtime_error():
    assert check(stop_iteration_raised_in_body, one(2)).breaks == []


def test_stop_iteration_from_inner_next_becomes_runtime_error():
    assert check(stop_iteration_leaking_from_inner_next, one(2)).breaks == []


def test_generator_is_finished_after_an_exception_left_it():
    check(generator_finished_after_an_exception, one(2))


class _Box:
    pass


def generator_dropped_inside_finally(t):
    marker = []

    def gen():
        box = _Box()
        box.data = marker
        try:
            yield t.sin()
        finally:
            box.data.append(1)  # runs when Python closes the dropped generator

    g = gen()
    next(g)
    return t.sin(), marker


def generator_dropped_by_a_callee(t):
    marker = []

    def gen():
        try:
            yield t.sin()
        finally:
            marker.append(len(marker))

    def helper():
        g = gen()
        return next(g)

    a = helper()
    return a + 1, marker


def test_generator_paused_in_finally_at_return_is_closed():
    check(generator_dropped_inside_finally, one(3))


def test_generator_dropped_by_a_callee_is_closed():
    check(generator_dropped_by_a_callee, one(3))


def generator_resuming_itself(t):
    def gen():
        i = next(me)
        yield i

    me = gen()
    try:
        next(me)
    except ValueError as e:
        return t + 1, str(e), next(me, "finished")
    return t


def test_a_generator_cannot_resume_itself():
    check(generator_resuming_itself, one(2))


class _Seq:
    """A sequence iterated by ``collections.abc.Sequence.__iter__``-style code."""

    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]


def _iterate_by_index(seq):
    i = 0
    try:
        while True:
            yield seq[i]
            i += 1
    except IndexError:  # closing throws GeneratorExit, which this clause does not catch
        return


def first_of_a_sequence(t):
    return next(_iterate_by_index(_Seq([t.sin(), t.cos()]))) + 1


def _catches_everything(marker, t):
    try:
        yield t.sin()
    except BaseException:  # closing throws GeneratorExit in here: user code runs
        marker.append("closed")
        raise


def generator_dropped_inside_a_catch_all(t):
    marker = []
    g = _catches_everything(marker, t)
    return next(g), marker


def test_generator_paused_under_a_clause_closing_skips_stays_in_one_graph():
    h = check(first_of_a_sequence, one(3))
    assert [len(r.graphs) for r in h.results] == [1] and not h.results[0].breaks


def test_generator_paused_under_a_catch_all_at_return_is_closed():
    check(generator_dropped_inside_a_catch_all, one(3))
