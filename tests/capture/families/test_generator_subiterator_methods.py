"""``throw()``/``close()`` of a generator delegating through ``yield from`` to an iterator that is
not a generator call that iterator's own ``throw``/``close``, as CPython's ``_gen_throw`` does
(families/generator_protocol.py)."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


class Delegate:
    def __init__(self, log, on_throw=None):
        self.log = log
        self.on_throw = on_throw

    def __iter__(self):
        return self

    def __next__(self):
        return 1

    def throw(self, typ, val=None, tb=None):
        self.log.append(("throw", typ))
        if self.on_throw is not None:
            raise self.on_throw
        return 2

    def close(self):
        self.log.append("close")


def _outer(log, on_throw=None):
    try:
        got = yield from Delegate(log, on_throw)
        log.append(("result", got))
        yield 3
    except KeyError:
        log.append("outer caught")
        yield 4


def _run(body, fullgraph=True):
    c = Harness(fullgraph=fullgraph).compile(body)
    got_log, want_log = [], []
    got = c(torch.ones(2), got_log)
    want = body(torch.ones(2), want_log)
    torch.testing.assert_close(got, want)
    assert got_log == want_log
    return got_log


def test_throw_reaches_the_iterators_own_throw_with_the_class_given():
    def body(t, log):
        g = _outer(log)
        a = next(g)
        b = g.throw(ValueError)
        g.close()
        return t * (a + b)

    assert _run(body) == [("throw", ValueError), "close"]


def test_close_reaches_the_iterators_own_close():
    def body(t, log):
        g = _outer(log)
        next(g)
        g.close()
        return t + 1

    assert _run(body) == ["close"]


def test_stop_iteration_from_the_iterators_throw_ends_the_delegation():
    def body(t, log):
        g = _outer(log, on_throw=StopIteration(7))
        next(g)
        return t * g.throw(ValueError)

    assert _run(body) == [("throw", ValueError), ("result", 7)]


def test_error_from_the_iterators_throw_is_raised_in_the_delegating_frame():
    def body(t, log):
        g = _outer(log, on_throw=KeyError("k"))
        next(g)
        return t * g.throw(ValueError)

    assert _run(body) == [("throw", ValueError), "outer caught"]


def test_generator_left_delegating_to_an_iterator_with_close_is_closed_at_return():
    def body(t, log):
        g = _outer(log)
        next(g)
        return t + 1  # g dies here: Python closes it, which calls the iterator's close()

    assert _run(body, fullgraph=False) == ["close"]
