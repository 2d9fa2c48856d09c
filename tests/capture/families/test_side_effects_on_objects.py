"""Attribute stores on objects from outside the capture (families/side_effects.py)."""
from __future__ import annotations

import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


class Flag:
    def __init__(self):
        self.value = None
        self.active = False


FLAG = Flag()


def _set(v):
    FLAG.value = v
    FLAG.active = True


def test_store_is_seen_by_later_reads_and_replayed_after_the_graph():
    def f(a):
        _set(a.sum())
        return a * 2 + FLAG.value

    h = Harness()
    a = torch.randn(3)
    out = h.compile(f)(a)
    assert not h.breaks
    assert FLAG.active is True and torch.equal(FLAG.value, a.sum())
    FLAG.value, FLAG.active = None, False
    assert_same(f(a), out)


def test_store_then_reset_leaves_the_final_state():
    def f(a):
        _set(a)
        b = a + FLAG.value
        FLAG.value = None
        FLAG.active = False
        return b

    h = Harness()
    a = torch.randn(3)
    out = h.compile(f)(a)
    assert_same(a + a, out)
    assert FLAG.value is None and FLAG.active is False
    assert not h.breaks


class Guarded:
    def __setattr__(self, name, value):
        raise AttributeError("read-only")


G = Guarded()


def test_store_on_object_with_custom_setattr_breaks_and_raises_like_eager():
    def f(a):
        G.x = 1
        return a

    h = Harness()
    try:
        h.compile(f)(torch.randn(2))
    except AttributeError as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("expected the eager AttributeError")


LOG = __import__("logging").getLogger("autograph.tests.reorder")


def test_logging_calls_the_logger_drops_are_replayed_after_the_graph(caplog):
    def f(a, n):
        LOG.warning("scaling by %d", n)
        b = a * n
        LOG.info("done")
        return b

    h = Harness()
    a = torch.randn(3)
    compiled = h.compile(f)
    with caplog.at_level("ERROR", logger="autograph.tests.reorder"):
        out = compiled(a, 3)
        compiled(a, 3)
    assert_same(a * 3, out)
    assert not h.breaks and len(h.backend.graphs) == 1
    assert caplog.records == []


def test_logging_calls_that_reach_user_handlers_run_in_order_around_the_graph():
    """A handler of the user's own class is user code: it runs at the call, in program order
    (tests/capture/families/test_logging_handlers_in_order.py)."""
    import logging

    class Keep(logging.Handler):
        def __init__(self):
            super().__init__()
            self.messages = []

        def emit(self, record):
            self.messages.append(record.getMessage())

    def f(a, n):
        LOG.warning("scaling by %d", n)
        b = a * n
        LOG.info("done")
        return b

    h = Harness()
    a = torch.randn(3)
    compiled = h.compile(f)
    keep = Keep()
    LOG.addHandler(keep)
    LOG.setLevel(logging.INFO)
    try:
        out = compiled(a, 3)
        compiled(a, 3)
    finally:
        LOG.removeHandler(keep)
        LOG.setLevel(logging.NOTSET)
    assert_same(a * 3, out)
    own = [b.kind for b in h.breaks if b.filename == __file__]  # (the harness compiles logging's own code too)
    assert own and set(own) == {"logging-runs-handlers"}
    assert keep.messages == ["scaling by 3", "done"] * 2


def test_logging_calls_that_only_write_to_stderr_or_the_test_runner_are_replayed_after_the_graph(caplog):
    """stderr and pytest's capture are read by nobody in the function: the calls go after the graph,
    in order, with no break (a model's `logger.warning_once` stays inside one graph)."""
    def f(a, n):
        LOG.warning("scaling by %d", n)
        b = a * n
        LOG.info("done")
        return b

    h = Harness()
    a = torch.randn(3)
    compiled = h.compile(f)
    with caplog.at_level("INFO", logger="autograph.tests.reorder"):
        out = compiled(a, 3)
        compiled(a, 3)
    assert_same(a * 3, out)
    assert not [b for b in h.breaks if b.filename == __file__] and len(h.backend.graphs) >= 1
    assert [r.getMessage() for r in caplog.records] == ["scaling by 3", "done"] * 2
