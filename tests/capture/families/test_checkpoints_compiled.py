"""A checkpointed block (families/checkpoints.py) under the compiling backends: one graph, the
values and gradients of plain Python, and AOTAutograd recomputing the block in backward."""
from __future__ import annotations

import pytest
import torch
from torch.utils.checkpoint import checkpoint

import autograph

torch.manual_seed(0)
BLOCK = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))


def step(x):
    return checkpoint(BLOCK, x.sin(), use_reentrant=False).tanh().sum()


def _values_and_grads(fn):
    torch.manual_seed(1)
    x = torch.randn(4, 8, requires_grad=True)
    for p in BLOCK.parameters():
        p.grad = None
    y = fn(x)
    y.backward()
    return [y.detach(), x.grad, *(p.grad for p in BLOCK.parameters())]


def _compile_and_compare(backend: str):
    compiled = autograph.compile(step, backend=backend)
    for got, expected in zip(_values_and_grads(compiled), _values_and_grads(step)):
        torch.testing.assert_close(got, expected)
    (entry,) = compiled.entries
    assert not entry.result.breaks and len(entry.result.graphs) == 1
    return entry.result.graphs[0]


@pytest.mark.slow
def test_inductor_compiles_a_checkpointed_block_in_one_graph():
    _compile_and_compare("inductor")


@pytest.mark.slow
@pytest.mark.triton
def test_triton_recomputes_the_checkpointed_block_in_backward():
    pytest.importorskip("triton")
    graph = _compile_and_compare("triton")
    forward, backward = graph.compiled.graphs
    assert (forward.kind, backward.kind) == ("forward", "backward")
    assert forward.fallback_reason is None and backward.fallback_reason is None
    # the block's first Linear is computed again in backward (without checkpointing the backward
    # has only the gradient matmuls, ``mm``)
    assert "aten.addmm.default" in backward.wrapper_source


DROPPING = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.5))


def marks_then_checkpoints(x, w):
    w.requires_grad_()  # autograd metadata changed in place: the graph runs as captured
    return checkpoint(DROPPING, x * w, use_reentrant=False).sum()


def test_a_graph_inductor_runs_as_captured_runs_the_real_checkpoint():
    compiled = autograph.compile(marks_then_checkpoints, backend="inductor")
    results = []
    for fn in (marks_then_checkpoints, compiled):
        torch.manual_seed(0)
        x, w = torch.randn(4, 8), torch.randn(8)
        y = fn(x, w)
        y.backward()
        results.append([y.detach(), w.grad, torch.rand(2)])
    for e, g in zip(*results):
        assert torch.equal(e, g)  # dropout's mask replayed for the recomputation, as in Python
    (entry,) = compiled.entries
    assert not entry.result.breaks and len(entry.result.graphs) == 1
