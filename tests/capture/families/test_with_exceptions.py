"""An exception raised during capture that leaves a ``with`` block (families/with_exits.py,
``WITH_EXCEPT_START``): the block's ``__exit__`` runs symbolically with (type, exception,
traceback), a true result swallows it and the code after the block stays in the graph, a false
one re-raises the same exception, and an exception of ``__exit__`` itself propagates -- each
exactly as eager Python does it."""
from __future__ import annotations

import contextlib
import unittest

import pytest
import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness

TC = unittest.TestCase()


def compiled(fn):
    h = Harness()
    return h.compile(fn), h


def breaks(h) -> list:
    return [(b.kind, b.reason) for r in h.results for b in r.breaks]


def outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - compared with the compiled call's
        return "raised", (type(exc), str(exc))


def assert_same_outcome(fn, *args):
    """Eager and compiled (twice) end the same way; returns the harness."""
    ref = outcome(fn, *args)
    cfn, h = compiled(fn)
    for _ in range(2):
        got = outcome(cfn, *args)
        assert got[0] == ref[0], (got, ref)
        if ref[0] == "ok":
            assert_same(got[1], ref[1])
        else:
            assert got[1] == ref[1]
    return h


def in_one_graph(fn, *args):
    """Runs as eager and without any graph break: the exit ran symbolically."""
    h = assert_same_outcome(fn, *args)
    assert breaks(h) == []
    assert len(h.backend.graphs) == 1
    return h


class CM:
    """A user context manager: its __exit__ answers ``ret`` (or raises) and records its calls."""

    def __init__(self, ret=None, raise_in_exit=False):
        self.ret = ret
        self.raise_in_exit = raise_in_exit
        self.log = ()

    def __enter__(self):
        self.log = self.log + ("enter",)
        return self

    def __exit__(self, typ, value, tb):
        self.log = self.log + (("exit", getattr(typ, "__name__", None), value is not None and value.args,
                                tb is not None),)
        if self.raise_in_exit:
            raise RuntimeError("from __exit__")
        return self.ret


def test_assert_raises_passes_in_one_graph():
    def f(x):
        y = x * 2
        with TC.assertRaises(KeyError):
            {}["a"]
        return y + 1
    in_one_graph(f, torch.ones(3))


def test_assert_raises_fails_when_nothing_is_raised():
    def f(x):
        with TC.assertRaises(KeyError):
            x = x + 1
        return x
    assert_same_outcome(f, torch.ones(3))
    assert outcome(f, torch.ones(3))[0] == "raised"


def test_assert_raises_lets_other_exceptions_through():
    def f(x):
        with TC.assertRaises(KeyError):
            raise TypeError("t")
        return x + 1

    def caught(x):
        try:
            with TC.assertRaises(KeyError):
                raise TypeError("t")
        except TypeError as e:
            return x + 1, e.args
        return x
    assert_same_outcome(f, torch.ones(3))
    assert outcome(f, torch.ones(3))[1][0] is TypeError
    in_one_graph(caught, torch.ones(3))


def test_assert_raises_regex_match_and_mismatch():
    def ok(x):
        with TC.assertRaisesRegex(ValueError, "bo+m"):
            raise ValueError("boom")
        return x + 1

    def mismatch(x):
        with TC.assertRaisesRegex(ValueError, "zzz"):
            raise ValueError("boom")
        return x + 1
    in_one_graph(ok, torch.ones(3))
    assert_same_outcome(mismatch, torch.ones(3))
    assert outcome(mismatch, torch.ones(3))[1][0] is AssertionError


def test_caught_exception_object_and_attributes():
    def f(x):
        with TC.assertRaises(ValueError) as cm:
            raise ValueError("boom", 3)
        return x + 1, cm.exception.args, type(cm.exception).__name__
    in_one_graph(f, torch.ones(3))

    def g(x):
        with TC.assertRaises(ValueError) as cm:
            raise ValueError("boom", 3)
        return cm.exception
    cg, _ = compiled(g)
    a, b = cg(torch.ones(1)), cg(torch.ones(1))
    ref = g(torch.ones(1))
    assert type(a) is type(ref) and a.args == ref.args and a.__traceback__ is ref.__traceback__ is None
    assert a is not b  # a new exception on every call, as Python raises a new one


def test_contextlib_suppress():
    def f(x):
        y = x * 2
        with contextlib.suppress(KeyError, IndexError):
            n = 1
            {}["k"]
            n = 100
        return y + n
    in_one_graph(f, torch.ones(3))


@pytest.mark.parametrize("ret", [True, False, None, 1, ""])
def test_user_exit_result_decides(ret):
    def f(x, cm):
        x = x * 2  # (a tensor operation inside the block would run in Python: its errors are run-time)
        try:
            with cm:
                raise ValueError("v")
        except ValueError as e:
            return x + 1, e.args, cm.log
        return x - 1, cm.log
    assert f(torch.ones(2), CM(ret))[-1] == ("enter", ("exit", "ValueError", ("v",), True))
    ref = f(torch.ones(2), CM(ret))
    cf, h = compiled(f)
    cm = CM(ret)
    got = cf(torch.ones(2), cm)
    assert_same(got, ref)
    assert cm.log == ref[-1]
    assert breaks(h) == []  # swallowed or re-raised into the except clause: all symbolic


def test_exit_raising_its_own_exception():
    def f(x, cm):
        try:
            with cm:
                raise ValueError("v")
        except RuntimeError as e:
            return x + 1, e.args, cm.log
        return x
    ref = f(torch.ones(2), CM(True, raise_in_exit=True))
    cf, h = compiled(f)
    got = cf(torch.ones(2), CM(True, raise_in_exit=True))
    assert_same(got, ref)
    assert breaks(h) == []


def test_exit_side_effects_in_order():
    def f(x, a, b):
        with a:
            with b:
                x = x + 1
                {}["k"]
        return x * 2
    refs = (CM(True), CM(True))
    ref = f(torch.ones(2), *refs)
    cf, h = compiled(f)
    cms = (CM(True), CM(True))
    assert_same(cf(torch.ones(2), *cms), ref)
    assert [c.log for c in cms] == [c.log for c in refs]
    assert breaks(h) == []


def test_nested_with_inner_passes_outer_swallows():
    def f(x, a, b):
        with a:
            with b:
                x = x + 1
                raise KeyError("k")
        return x * 2
    refs = (CM(True), CM(False))
    ref = f(torch.ones(2), *refs)
    cf, h = compiled(f)
    cms = (CM(True), CM(False))
    assert_same(cf(torch.ones(2), *cms), ref)
    assert [c.log for c in cms] == [c.log for c in refs]
    assert breaks(h) == []


@contextlib.contextmanager
def swallowing(log):
    log.append("before")
    try:
        yield 7
    except ValueError as e:
        log.append(("caught", e.args))
    log.append("after")


def test_contextmanager_try_except_around_yield():
    def f(x):
        log = []
        with swallowing(log) as v:
            x = x + v
            raise ValueError("in block")
        return x * 2, log
    in_one_graph(f, torch.ones(2))


def test_graph_break_inside_the_block():
    def f(x):
        y = x * 2
        with contextlib.suppress(KeyError):
            print(end="")  # a graph break inside the block
            y = y + 1
            {}["missing"]
            y = y + 100
        return y + 1
    h = assert_same_outcome(f, torch.ones(2))
    assert [kind for kind, _ in breaks(h)] == ["side-effect"]  # the print only
    assert any("add" in str(n.target) for n in h.backend.graphs[-1].graph.nodes)  # after it: in a graph
