"""Random small programs of pointwise ops, views and reductions: Triton backend == eager."""
from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.triton

UNARY = [torch.sin, torch.exp, torch.tanh, torch.sigmoid, torch.relu, torch.neg, torch.abs,
         lambda t: t * 0.5, lambda t: t + 1.5, lambda t: torch.clamp(t, -1, 1)]
BINARY = [torch.add, torch.sub, torch.mul, torch.maximum, torch.minimum,
          lambda a, b: torch.where(a > b, a, b * 0.5)]
REDUCE = [lambda t, d: t.sum(d, keepdim=True), lambda t, d: t.amax(d, keepdim=True),
          lambda t, d: t.mean(d, keepdim=True), lambda t, d: torch.softmax(t, d)]
VIEW = [lambda t: t, lambda t: t.transpose(0, 1).contiguous().transpose(0, 1), lambda t: t.flip(1)]


@st.composite
def programs(draw):
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 9))
    steps = draw(st.lists(st.tuples(st.sampled_from(["u", "b", "r", "v"]), st.integers(0, 9),
                                    st.integers(0, 9), st.integers(0, 1)), min_size=1, max_size=8))
    return rows, cols, steps


def build(steps):
    def program(x, y):
        values = [x, y]
        for kind, i, j, d in steps:
            a, b = values[i % len(values)], values[j % len(values)]
            if kind == "u":
                values.append(UNARY[i % len(UNARY)](a))
            elif kind == "b":
                values.append(BINARY[j % len(BINARY)](a, b))
            elif kind == "r":
                values.append(REDUCE[j % len(REDUCE)](a, d) + b)
            else:
                values.append(VIEW[j % len(VIEW)](a))
        return tuple(values[2:])

    return program


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs())
def test_random_program_matches_eager(compile_fn, program):
    rows, cols, steps = program
    fn = build(steps)
    x, y = torch.randn(rows, cols), torch.randn(rows, cols)
    compiled = compile_fn(fn, x, y)
    got, want = compiled(x, y), fn(x, y)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-4)
    assert all(g.fallback_reason is None for g in compiled.graphs)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs())
def test_random_program_gradients_match_eager(compile_fn, program):
    rows, cols, steps = program
    fn = build(steps)
    x, y = torch.randn(rows, cols, requires_grad=True), torch.randn(rows, cols, requires_grad=True)
    xr, yr = x.detach().clone().requires_grad_(), y.detach().clone().requires_grad_()
    compiled = compile_fn(fn, x, y)
    got, want = compiled(x, y), fn(xr, yr)
    weights = [torch.randn_like(w) for w in want]
    sum((g * c).sum() for g, c in zip(got, weights)).backward()
    sum((w * c).sum() for w, c in zip(want, weights)).backward()
    torch.testing.assert_close(x.grad, xr.grad, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(y.grad, yr.grad, atol=1e-4, rtol=1e-4)
