"""Graph breaks under ``try`` and inside ``except`` handlers (capture/engine/api.py ``_inside_blocks``,
``Unsupported.retry_step``): a call that breaks under a ``try`` runs natively and the code after it
stays compiled; if it raises, the original's handler runs (in Python, from a resume function that
re-raises the exception in place). A break inside a handler moves to the instruction that raised."""
from __future__ import annotations

import pytest
import torch

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness

CALLS: list = []


def maybe_raise(x, fail):
    print(end="")  # never in a graph
    CALLS.append(fail)
    if fail:
        raise KeyError("from the breaking call")
    return x


def t_call_under_try(x, fail):
    y = x * 2
    try:
        z = maybe_raise(y, fail)
    except KeyError:
        z = y - 1
    finally:
        CALLS.append("finally")
    return z + 1


@pytest.mark.parametrize("fail", [False, True])
def test_break_under_try_keeps_the_rest_compiled(fail):
    x = torch.randn(3)
    CALLS.clear()
    ref = t_call_under_try(x, fail)
    ref_calls = list(CALLS)
    CALLS.clear()
    h = Harness()
    out = h.compile(t_call_under_try)(x, fail)
    assert_same(ref, out)
    assert CALLS == ref_calls  # the call ran once, the finally once
    ops = [[str(n.target) for n in gm.graph.nodes if n.op == "call_function"] for gm in h.backend.graphs]
    assert any("mul" in " ".join(o) for o in ops)
    if not fail:  # the code after the try is a graph of the resume function
        assert any("add" in " ".join(o) for o in ops[1:]), ops


def e_break_in_handler(x):
    y = x * 2
    try:
        raise ValueError("boom")
    except ValueError:
        y = maybe_raise(y + 1, False)
    return y * 3


def test_break_inside_an_except_handler_moves_to_the_raise():
    x = torch.randn(3)
    h = Harness()
    out = h.compile(e_break_in_handler)(x)
    assert_same(e_break_in_handler(x), out)
    assert any("graph breaks earlier" in b.reason for b in h.breaks)
    assert h.results[0].transformed_code is not None and h.backend.graphs  # the code before is compiled


def handler_breaks_in_a_loop(x):
    out = []
    for call in (lambda: int("a"), lambda: None, lambda: int("b")):
        try:
            call()
        except ValueError as exc:
            out.append(f"{exc}")  # a graph break in the handler: the break moves to call()
    return x + 1, out


def test_break_moved_to_a_raise_inside_a_loop_runs_the_next_turns():
    """The resume function enters the handler by raising; the loop's next turns reach the same
    instruction normally (it raised the loop variable: TypeError, found by dynsuite-dicts)."""
    h = Harness()
    cfn = h.compile(handler_breaks_in_a_loop)
    for _ in range(2):
        assert_same(cfn(torch.ones(1)), handler_breaks_in_a_loop(torch.ones(1)))
