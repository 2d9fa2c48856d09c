"""``send``, ``throw`` and ``close`` of generators made during the call run in capture, as
CPython runs them: the generator's own except/finally blocks run, ``yield from`` forwards."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def one(*shape):
    return lambda: (torch.randn(*shape),)


def send_values(t):
    log = []

    def gen():
        while True:
            got = yield len(log)
            log.append(got)

    g = gen()
    next(g)
    a = g.send(t * 2)
    b = g.send(3)
    return a, b, log


def send_non_none_to_a_just_started_generator(t):
    def gen():
        yield 1

    try:
        gen().send(5)
    except TypeError as e:
        return t + 1, str(e)
    return t


def throw_caught_in_the_generator(t):
    z = []

    def gen():
        try:
            yield 1
        except RuntimeError:
            z.append(1)
            yield 10
        finally:
            z.append(2)

    g = gen()
    a = next(g)
    b = g.throw(RuntimeError)
    g.close()  # (left paused in its except block, Python would close it as the call returns)
    return t * (a + b), z


def throw_not_caught_runs_finally(t):
    z = []

    def gen():
        try:
            yield t.sin()
        finally:
            z.append("finally")

    g = gen()
    next(g)
    try:
        g.throw(ValueError("x"))
    except ValueError as e:
        return t + 1, z, str(e), next(g, "done")
    return t, z


def throw_ends_generator_stop_iteration_value(t):
    def gen():
        try:
            yield 1
        except ValueError:
            return 7

    g = gen()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return t * e.args[0]
    return t


def throw_through_yield_from(t):
    log = []

    def leaf():
        try:
            yield 1
        except ValueError:
            log.append("leaf")
            yield 2

    def outer():
        r = yield from leaf()
        yield r

    g = outer()
    next(g)
    return t + g.throw(ValueError), log, next(g)


def close_runs_finally_once(t):
    z = []

    def gen():
        try:
            yield t.sin()
            yield t.cos()
        finally:
            z.append(len(z))

    g = gen()
    i = next(g)
    g.close()
    g.close()
    return i, z, next(g, None)


def close_ignored_is_runtime_error(t):
    def gen():
        try:
            yield 1
        except GeneratorExit:
            yield 2

    g = gen()
    next(g)
    try:
        g.close()
    except RuntimeError as e:
        return t + 1, str(e)
    return t


def close_through_yield_from(t):
    log = []

    def sub():
        try:
            yield 1
        finally:
            log.append("sub")

    def outer():
        try:
            yield from sub()
        finally:
            log.append("outer")

    g = outer()
    next(g)
    g.close()
    return t + 1, log


def test_send():
    assert check(send_values, one(2)).breaks == []


def test_send_non_none_to_a_just_started_generator():
    assert check(send_non_none_to_a_just_started_generator, one(2)).breaks == []


def test_throw_caught_in_the_generator():
    assert check(throw_caught_in_the_generator, one(2)).breaks == []


def test_throw_not_caught_runs_finally_and_finishes_the_generator():
    assert check(throw_not_caught_runs_finally, one(2)).breaks == []


def test_throw_that_ends_the_generator_raises_stop_iteration_with_the_return_value():
    assert check(throw_ends_generator_stop_iteration_value, one(2)).breaks == []


def test_throw_through_yield_from_reaches_the_subgenerator():
    assert check(throw_through_yield_from, one(2)).breaks == []


def test_close_runs_finally_once():
    assert check(close_runs_finally_once, one(2)).breaks == []


def test_close_ignored_is_runtime_error():
    assert check(close_ignored_is_runtime_error, one(2)).breaks == []


def test_close_through_yield_from_closes_the_subgenerator_first():
    assert check(close_through_yield_from, one(2)).breaks == []


def names_of_next_and_of_generator_methods(t):
    def gen():
        yield 1

    g = gen()
    return t + 1, next.__name__, next.__qualname__, g.throw.__name__, g.close.__qualname__


def test_names_of_next_and_generator_methods_are_constants():
    assert check(names_of_next_and_of_generator_methods, one(2)).breaks == []
