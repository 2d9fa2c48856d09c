"""Graph breaks inside ``with`` blocks resume inside the block (families/contexts.py,
capture/engine/api.py ``_inside_blocks``, bytecode/resume.py ``"enter"`` slots): the code before and
after the break stays in graphs, the breaking call runs with the block's state, and each
``__exit__`` runs once, in order, also when an exception leaves the block."""
from __future__ import annotations

import contextlib

import pytest
import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness

LOG: list = []


def state():
    return (torch.is_grad_enabled(), torch.is_inference_mode_enabled(), torch.is_autocast_enabled("cpu"))


def probe(x):
    """A call capture cannot keep in a graph: it records the state it really runs under."""
    print(end="")
    LOG.append(("probe", state()))
    return x


def run_both(fn, *args):
    """(eager result, eager log), (compiled result, compiled log), harness."""
    LOG.clear()
    ref = fn(*args)
    ref_log = list(LOG)
    LOG.clear()
    h = Harness()
    out = h.compile(fn)(*args)
    out_log = list(LOG)
    LOG.clear()
    assert state() == (True, False, False), "the compiled call leaked state"
    return (ref, ref_log), (out, out_log), h


def graph_ops(h) -> list[list[str]]:
    return [[str(n.target) for n in gm.graph.nodes if n.op == "call_function"] for gm in h.backend.graphs]


def assert_before_and_after_in_graphs(h):
    ops = graph_ops(h)
    assert len(ops) >= 2, ops
    assert any("mul" in " ".join(o) for o in ops[:1]), ops     # code before the break
    assert any("add" in " ".join(o) for o in ops[1:]), ops     # code after the break


def w_no_grad(x, w):
    with torch.no_grad():
        a = x * w
        a = probe(a)
        b = a + w
    return a, b, b.requires_grad, x + w


def w_enable_grad_in_no_grad(x, w):
    with torch.no_grad():
        a = x * w
        with torch.enable_grad():
            c = probe(x * w)
            d = c + w
        e = a + d
    return d.requires_grad, e.requires_grad, e


def w_set_grad_enabled(x, w):
    with torch.set_grad_enabled(False):
        a = x * w
        a = probe(a)
        b = a + w
    return b, b.requires_grad


def w_inference(x, w):
    with torch.inference_mode():
        a = x * w
        a = probe(a)
        b = a + w
    return b, b.is_inference(), b.requires_grad, (x + w).is_inference()


def w_autocast(x, w):
    with torch.autocast("cpu"):
        a = x @ w
        a = probe(a * 2)
        b = a @ w
        c = b + 1
    return c, c.dtype, (x @ w).dtype


@pytest.mark.parametrize("fn", [w_no_grad, w_enable_grad_in_no_grad, w_set_grad_enabled, w_inference, w_autocast])
def test_break_inside_a_state_block_keeps_both_sides_compiled(fn):
    x, w = torch.randn(3, 3), torch.randn(3, 3, requires_grad=True)
    (ref, ref_log), (out, out_log), h = run_both(fn, x, w)
    assert_same(ref, out)
    assert out_log == ref_log  # the breaking call ran with the block's state
    assert len(h.breaks) >= 1
    assert_before_and_after_in_graphs(h)
    assert all(r.transformed_code is not None or r.no_tensor_work for r in h.results)


def test_no_grad_break_second_call_reuses_the_entries():
    x, w = torch.randn(3, 3), torch.randn(3, 3, requires_grad=True)
    h = Harness()
    f = h.compile(w_no_grad)
    f(x, w)

    def ours():
        return [r for r in h.results if "w_no_grad" in getattr(r.fn, "__qualname__", "")]
    n = len(ours())
    assert_same(w_no_grad(x, w), f(x, w))
    assert len(ours()) == n


def w_data_dependent_in_no_grad(x, w):
    with torch.no_grad():
        a = x * w
        if a.sum() > 0:
            b = a + 1
        else:
            b = a - 1
        c = b * w
    return c, c.requires_grad, (c + w).requires_grad


@pytest.mark.parametrize("sign", [1, -1])
def test_data_dependent_branch_inside_no_grad(sign):
    x, w = torch.ones(3) * sign, torch.ones(3, requires_grad=True)
    (ref, _), (out, _), h = run_both(w_data_dependent_in_no_grad, x, w)
    assert_same(ref, out)
    assert len(h.backend.graphs) >= 2


def test_grad_of_the_resumed_part_matches_eager():
    def f(x, w):
        y = x * w
        with torch.no_grad():
            s = probe(y * 2)
        return (y * s).sum()

    x, w = torch.randn(3), torch.randn(3, requires_grad=True)
    h = Harness()
    out = h.compile(f)(x, w)
    out.backward()
    g = w.grad.clone()
    w.grad = None
    f(x, w).backward()
    assert torch.equal(g, w.grad)


# --- user context managers ------------------------------------------------------------------

class Tracked:
    """A Python context manager that logs enter/exit (and the exception it saw)."""

    def __init__(self, name, suppress=False):
        self.name, self.suppress = name, suppress

    def __enter__(self):
        LOG.append(("enter", self.name))
        return self

    def __exit__(self, typ, exc, tb):
        LOG.append(("exit", self.name, typ.__name__ if typ else None))
        return self.suppress


def w_user_cm(x):
    with Tracked("a") as t:
        y = x * 2
        y = probe(y)
        z = y + 1
    return z, t.name


def w_user_cm_in_no_grad(x, w):
    with torch.no_grad():
        a = x * w
        with Tracked("inner"):
            a = probe(a)
            b = a + w
    return b, b.requires_grad


def test_user_context_manager_exit_runs_once_after_the_break():
    x = torch.randn(3)
    (ref, ref_log), (out, out_log), h = run_both(w_user_cm, x)
    assert_same(ref, out)
    assert out_log == ref_log
    assert [e for e in out_log if e[0] != "probe"] == [("enter", "a"), ("exit", "a", None)]
    assert_before_and_after_in_graphs(h)


def w_nested_user_cms(x):
    with Tracked("outer"):
        y = x + 1
        with Tracked("inner"):
            z = probe(y * 3)
            z = z + 1
    return z


def test_nested_user_context_managers_with_a_break_in_the_inner_block():
    """The inner ``__exit__`` entered by a resume function reaches the next resume (it was lost
    to a clashing temporary name, and the compiled call raised TypeError)."""
    x = torch.randn(3)
    (ref, ref_log), (out, out_log), h = run_both(w_nested_user_cms, x)
    assert_same(ref, out)
    assert out_log == ref_log
    assert [e for e in out_log if e[0] != "probe"] == [
        ("enter", "outer"), ("enter", "inner"), ("exit", "inner", None), ("exit", "outer", None)]


def test_user_context_manager_inside_no_grad():
    x, w = torch.randn(3), torch.randn(3, requires_grad=True)
    (ref, ref_log), (out, out_log), h = run_both(w_user_cm_in_no_grad, x, w)
    assert_same(ref, out)
    assert out_log == ref_log
    assert_before_and_after_in_graphs(h)


def failing_probe(x):
    print(end="")
    LOG.append(("probe", state()))
    raise KeyError("from the breaking call")


def w_cm_break_raises(x, suppress):
    with Tracked("a", suppress):
        with torch.no_grad():
            y = x * 2
            failing_probe(y)
            y = y + 1
    return x + 1


@pytest.mark.parametrize("suppress", [False, True])
def test_exception_of_the_breaking_call_reaches_exit_once(suppress):
    x = torch.randn(3)

    def call(fn):
        LOG.clear()
        try:
            return ("ok", fn(x, suppress)), list(LOG)
        except KeyError as e:
            return ("raised", str(e)), list(LOG)

    ref = call(w_cm_break_raises)
    h = Harness()
    got = call(h.compile(w_cm_break_raises))
    assert got[0][0] == ref[0][0]
    if ref[0][0] == "ok":
        assert_same(ref[0][1], got[0][1])
    assert got[1] == ref[1]
    assert [e for e in got[1] if e[0] == "exit"] == [("exit", "a", "KeyError")]
    assert state() == (True, False, False)


def w_exception_after_break(x):
    with Tracked("a"):
        with torch.no_grad():
            y = probe(x * 2)
            if y.sum() > -1e9:
                raise ValueError("after the break")
    return y


def test_exception_in_the_resumed_part_reaches_exit_once():
    x = torch.randn(3)
    LOG.clear()
    with pytest.raises(ValueError):
        w_exception_after_break(x)
    ref_log = list(LOG)
    LOG.clear()
    h = Harness()
    with pytest.raises(ValueError, match="after the break"):
        h.compile(w_exception_after_break)(x)
    assert LOG == ref_log
    assert state() == (True, False, False)


@contextlib.contextmanager
def tracked_gen(name):
    LOG.append(("enter", name))
    try:
        yield name
    finally:
        LOG.append(("exit", name))


def w_contextmanager(x):
    y = x * 3
    with tracked_gen("g") as n:
        z = y * 2
        z = probe(z)
        z = z + 1
    return z, n


def test_contextlib_contextmanager_break():
    x = torch.randn(3)
    (ref, ref_log), (out, out_log), h = run_both(w_contextmanager, x)
    assert_same(ref, out)
    assert out_log == ref_log
    assert_before_and_after_in_graphs(h)


# --- decorators -------------------------------------------------------------------------------

@torch.no_grad()
def d_no_grad(x, w):
    a = x * w
    a = probe(a)
    return a + w


@torch.inference_mode()
def d_inference(x, w):
    a = x * w
    a = probe(a)
    return a + w


@torch.enable_grad()
def d_enable_grad(x, w):
    a = x * w
    a = probe(a)
    return a + w


@pytest.mark.parametrize("fn", [d_no_grad, d_inference, d_enable_grad])
def test_state_decorator_with_a_break(fn):
    x, w = torch.randn(3), torch.randn(3, requires_grad=True)
    (ref, ref_log), (out, out_log), h = run_both(fn, x, w)
    assert_same(ref, out)
    assert out.requires_grad == ref.requires_grad and out.is_inference() == ref.is_inference()
    assert out_log == ref_log
    assert all(r.transformed_code is not None or r.no_tensor_work for r in h.results)
    assert graph_ops(h), "nothing was compiled"


# --- state switches without `with` ---------------------------------------------------------

def s_set_grad_call(x, w):
    torch.set_grad_enabled(False)
    y = x * w
    return y, y.requires_grad


def test_set_grad_enabled_called_as_a_function_switches_like_eager():
    x, w = torch.randn(3), torch.randn(3, requires_grad=True)
    try:
        ref = s_set_grad_call(x, w)
        after_eager = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
        out = Harness().compile(s_set_grad_call)(x, w)
        after = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert_same(ref, out)
    assert after is after_eager is False


def test_autocast_block_without_break_computes_in_low_precision():
    def f(x):
        with torch.autocast("cpu"):
            y = x @ x
        return y, y.dtype

    x = torch.randn(4, 4)
    h = Harness()
    out = h.compile(f)(x)
    assert_same(f(x), out)
    assert out[0].dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")
