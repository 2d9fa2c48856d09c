"""A generator made in the call and left paused in a cleanup block dies when the function
returns, and Python closes it then (its ``finally`` runs): capture closes it at the return,
after the return value, when it is the one such generator and nothing left behind keeps it
(families/generators.py ``_no_suspended_cleanup``)."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


def _guarded(t, log, name="g"):
    try:
        yield t
        yield t
    finally:
        log.append(f"{name} finally")


def test_generator_paused_in_finally_is_closed_at_return_without_a_break():
    def f(t, log):
        gen = _guarded(t, log)
        a = next(gen)
        log.append("body")
        return a * 2

    h = Harness(fullgraph=True)
    c = h.compile(f)
    got_log, want_log = [], []
    torch.testing.assert_close(c(torch.ones(2), got_log), f(torch.ones(2), want_log))
    assert got_log == want_log == ["body", "g finally"]
    assert not h.breaks


def test_generator_returned_is_not_closed_at_return():
    def f(t, log):
        gen = _guarded(t, log)
        next(gen)
        return t * 2, gen

    c = Harness().compile(f)
    log = []
    out, gen = c(torch.ones(2), log)
    assert log == []
    assert [v.tolist() for v in gen] == [[1.0, 1.0]]
    assert log == ["g finally"]


def test_two_generators_paused_in_finally_are_both_closed_by_the_call():
    def f(t, log):
        first = _guarded(t, log, "first")
        second = _guarded(t, log, "second")
        next(second)
        next(first)
        return t + 1

    c = Harness().compile(f)
    got_log, want_log = [], []
    torch.testing.assert_close(c(torch.ones(2), got_log), f(torch.ones(2), want_log))
    # both finally blocks ran when the call returned (their relative order follows the
    # transformed code's locals, not the function's: not modelled)
    assert sorted(got_log) == sorted(want_log) == ["first finally", "second finally"]


def test_generator_whose_finally_raises_is_left_to_python():
    def failing(t):
        try:
            yield t
        finally:
            raise KeyError("in finally")

    def f(t):
        gen = failing(t)
        return next(gen) + 1

    c = Harness().compile(f)
    torch.testing.assert_close(c(torch.ones(2)), torch.full((2,), 2.0))
