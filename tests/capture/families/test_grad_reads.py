"""``p.grad`` of a parameter (or of a tensor that needs no grad) from outside is a graph input
(families/tensors.py): a list of a model's gradients, scaled in place, stays in one graph,
bit-identical to plain Python. Not after a ``zero_grad()`` the same capture recorded. A torch Python
function that reads ``.grad`` of a tensor argument is never one graph node (core/grad_reads.py):
a functionalizing backend would trace it without the gradients it reads and writes."""
from __future__ import annotations

import torch
from torch import nn

from tests.capture.harness import Harness


def _model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2, bias=False))
    model(torch.randn(5, 4)).sum().backward()
    return model


def unscale(model, scale):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    for g in grads:
        g.div_(scale)
    return torch.stack([g.sum() for g in grads])


def test_gradients_of_parameters_are_graph_inputs():
    h = Harness()
    compiled = h.compile(unscale)
    models = [_model(), _model()]
    for _ in range(3):
        got, want = compiled(models[0], 4.0), unscale(models[1], 4.0)
        assert torch.equal(got, want)
        assert all(torch.equal(a.grad, b.grad) for a, b in zip(models[0].parameters(), models[1].parameters()))
    assert h.captures == 1 and h.breaks == []


def cleared_then_read(model, opt):
    opt.zero_grad()
    return [p.grad for p in model.parameters()]


def test_a_read_after_a_recorded_zero_grad_sees_it():
    h = Harness()
    compiled = h.compile(cleared_then_read)
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    assert compiled(model, opt) == [None, None, None]
    assert any("`.grad`" in b.reason for b in h.breaks), h.breaks


def clip_given(model, total):
    torch.nn.utils.clip_grads_with_norm_(list(model.parameters()), 1.0, total)
    return total * 1


def test_a_function_reading_gradients_of_its_arguments_is_no_graph_node():
    h = Harness()
    compiled = h.compile(clip_given)
    models = [_model(), _model()]
    total = torch.tensor(3.0)
    assert torch.equal(compiled(models[0], total), clip_given(models[1], total))
    assert all(torch.equal(a.grad, b.grad) for a, b in zip(models[0].parameters(), models[1].parameters()))
    targets = [getattr(node.target, "__name__", "") for r in h.results for g in r.graphs
               for node in g.gm.graph.nodes]
    assert "_clip_grads_with_norm_" not in targets, targets


def forward_relu(model, x):
    return torch.nn.functional.relu(model(x)).sum()


def test_capture_reads_no_gradient_of_a_non_leaf():
    """Looking for gradients among a call's tensors must not touch ``.grad`` of a non-leaf (it warns)."""
    import warnings
    h = Harness()
    compiled = h.compile(forward_relu)
    model = _model()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.equal(compiled(model, torch.ones(2, 4)), forward_relu(model, torch.ones(2, 4)))
    assert not [w for w in caught if "not a leaf" in str(w.message)]
