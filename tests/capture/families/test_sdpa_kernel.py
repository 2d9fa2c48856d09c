"""``torch.nn.attention.sdpa_kernel`` is a torch state context (families/sdpa_kernel.py): its flag
switches are graph nodes, the flags are switched for the capture inside the block, a graph break
inside the block resumes inside it, and the flags are put back as Python puts them back."""
from __future__ import annotations

import pytest
import torch
from torch.nn.attention import SDPBackend, _cur_sdpa_kernel_backends, sdpa_kernel

from tests.capture.harness import Harness

X = torch.randn(2, 2, 2, 2)


def _attention(x):
    return torch.nn.functional.scaled_dot_product_attention(x, x, x)


def test_block_is_captured_with_switches_in_the_graph():
    def f(x):
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.MATH]) as d:
            out = _attention(x)
            inside = _cur_sdpa_kernel_backends()
        return out, d, inside, _cur_sdpa_kernel_backends()

    expected = f(X)
    h = Harness()
    got = h.compile(f)(X)
    assert not h.breaks
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:] and got[1] == {}
    assert _cur_sdpa_kernel_backends() == expected[3]
    assert torch._C._set_sdp_use_math in h.backend.targets()


def test_graph_break_inside_the_block_resumes_inside_it():
    def f(x):
        with sdpa_kernel(SDPBackend.MATH):
            y = x + 1
            torch._dynamo.graph_break()
            z = _attention(y)
            inside = _cur_sdpa_kernel_backends()
        return z, inside

    before = _cur_sdpa_kernel_backends()
    h = Harness()
    z, inside = h.compile(f)(X)
    assert torch.equal(z, f(X)[0]) and inside == [SDPBackend.MATH]
    assert _cur_sdpa_kernel_backends() == before
    assert [b.kind for b in h.breaks] == ["forced-break"]


def test_flags_changed_between_calls_recapture():
    def f(x):
        with sdpa_kernel(SDPBackend.MATH):
            y = x * 2
        return y, _cur_sdpa_kernel_backends()

    h = Harness()
    compiled = h.compile(f)
    before = _cur_sdpa_kernel_backends()
    assert compiled(X)[1] == before
    try:
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION]):
            assert compiled(X)[1] == [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
    finally:
        assert _cur_sdpa_kernel_backends() == before
    assert h.captures == 2


def test_an_error_inside_the_block_restores_the_flags():
    def f(x):
        with sdpa_kernel(SDPBackend.MATH):
            raise ValueError("inside")

    before = _cur_sdpa_kernel_backends()
    h = Harness()
    with pytest.raises(ValueError):
        h.compile(f)(X)
    assert _cur_sdpa_kernel_backends() == before


def test_an_error_of_the_graph_inside_the_block_restores_the_flags():
    def f(x, idx):
        with sdpa_kernel(SDPBackend.MATH):
            y = torch.nn.functional.embedding(idx, x.view(-1, 1)).view(-1)
        return y + 1

    before = _cur_sdpa_kernel_backends()
    h = Harness()
    compiled = h.compile(f)
    x = torch.arange(4.0)
    assert torch.equal(compiled(x, torch.tensor([1])), f(x, torch.tensor([1])))
    with pytest.raises(IndexError):
        compiled(x, torch.tensor([9]))
    assert _cur_sdpa_kernel_backends() == before


def test_resume_inside_blocks_of_different_backends():
    def f(x, backend):
        with sdpa_kernel(backend):
            y = x + 1
            torch._dynamo.graph_break()
            inside = _cur_sdpa_kernel_backends()
        return y, inside

    h = Harness()
    compiled = h.compile(f)
    for backend in (SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH):
        assert compiled(X, backend)[1] == [backend]
