"""A bare ``raise`` while no exception is handled raises ``RuntimeError('No active exception to
reraise')``: capture knows it exactly (the caller handles none, under a guard), so the function's
own handlers take it symbolically instead of breaking the graph."""
from __future__ import annotations

import contextlib

import pytest
import torch

from tests.capture.harness import Harness


def test_bare_raise_caught_in_the_function_is_captured():
    def f(t):
        try:
            raise  # noqa: PLE0704
        except RuntimeError as e:
            return t + 1, str(e), e.__context__, type(e)

    h = Harness(fullgraph=True)
    got = h.compile(f)(torch.ones(2))
    want = f(torch.ones(2))
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:] == ("No active exception to reraise", None, RuntimeError)
    assert not h.breaks


def test_bare_raise_swallowed_by_a_context_manager():
    seen = []

    @contextlib.contextmanager
    def swallow():
        try:
            yield
        except RuntimeError as e:
            seen.append(str(e))

    def f(t):
        with swallow():
            raise  # noqa: PLE0704
        return t * 3

    h = Harness(fullgraph=True)
    torch.testing.assert_close(h.compile(f)(torch.ones(2)), torch.full((2,), 3.0))
    assert seen == ["No active exception to reraise"]


def test_bare_raise_leaving_the_function():
    def f(t):
        t = t * 2
        raise  # noqa: PLE0704

    with pytest.raises(RuntimeError, match="No active exception to reraise"):
        Harness().compile(f)(torch.ones(2))
