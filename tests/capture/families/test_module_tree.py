"""``modules()``, ``named_modules()``, ``children()``, ``named_children()`` of torch's modules are
walked at capture time with no break (families/module_tree.py), guarded: a change of the tree,
shared submodules included, recompiles. ``nn.TransformerEncoder``'s inference fast path (which
walks ``self.modules()`` on every call) is one graph."""
from __future__ import annotations

import torch
from torch import nn

from tests.capture.harness import Harness


def _walk(model, x):
    names = [name for name, _ in model.named_modules()]
    kids = [name for name, _ in model.named_children()]
    count = len(list(model.modules())) + len(list(model.children()))
    hooks = any(len(m._forward_hooks) for m in model.modules())
    sub = [name for name, _ in model.named_modules(prefix="net")]
    return x * count, names, kids, hooks, sub


def _model():
    shared = nn.Linear(2, 2)
    return nn.Sequential(shared, nn.ReLU(), nn.Sequential(shared, nn.Tanh()), shared)


def test_the_module_tree_is_walked_in_torchs_order_in_one_graph():
    h = Harness()
    compiled = h.compile(_walk)
    model = _model()
    for _ in range(3):
        x = torch.randn(3)
        got, want = compiled(model, x), _walk(model, x)
        assert torch.equal(got[0], want[0]) and got[1:] == want[1:]
    assert h.captures == 1 and h.breaks == []


def test_a_changed_tree_recompiles():
    h = Harness()
    compiled = h.compile(_walk)
    model = _model()
    x = torch.randn(3)
    compiled(model, x)
    model[3] = nn.Linear(2, 2)  # no longer shared: named_modules yields it now
    got, want = compiled(model, x), _walk(model, x)
    assert torch.equal(got[0], want[0]) and got[1:] == want[1:]
    model[2][0] = model[1]  # the same set of names, another sharing
    got, want = compiled(model, x), _walk(model, x)
    assert torch.equal(got[0], want[0]) and got[1:] == want[1:]
    assert h.captures == 3


def _infer(model, x):
    return model(x)


def test_transformer_encoder_inference_fast_path_is_one_graph_and_bit_identical():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    for model in (layer, nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)):
        model.eval()
        h = Harness()
        compiled = h.compile(_infer)
        with torch.no_grad():
            for i in range(3):
                x = torch.randn(2, 4, 16)
                assert torch.equal(compiled(model, x), _infer(model, x))
        assert h.captures == 1 and h.breaks == []


def _members(model, x):
    total = sum(p.sum() for p in model.parameters())
    names = [name for name, _ in model.named_parameters()]
    every = [name for name, _ in model.named_parameters(prefix="m", remove_duplicate=False)]
    own = len(list(model.parameters(recurse=False)))
    bufs = [name for name, b in model.named_buffers()] + [len(list(model.buffers()))]
    return x * total, names, every, own, bufs


def _tied():
    shared = nn.Linear(2, 2)
    return nn.Sequential(shared, nn.BatchNorm1d(2), nn.Sequential(nn.Linear(2, 2, bias=False), shared))


def test_parameters_and_buffers_are_walked_in_one_graph_and_bit_identical():
    h = Harness()
    compiled = h.compile(_members)
    model = _tied()
    for _ in range(3):
        x = torch.randn(3)
        got, want = compiled(model, x), _members(model, x)
        assert torch.equal(got[0], want[0]) and got[1:] == want[1:]
    assert h.captures == 1 and h.breaks == []


def test_changed_members_recompile():
    h = Harness()
    compiled = h.compile(_members)
    model = _tied()
    x = torch.randn(3)
    compiled(model, x)
    model[2][0].bias = nn.Parameter(torch.ones(2))  # a None slot becomes a parameter
    got, want = compiled(model, x), _members(model, x)
    assert torch.equal(got[0], want[0]) and got[1:] == want[1:]
    model[2][0].weight = model[0].weight  # the same names, one more tensor shared
    got, want = compiled(model, x), _members(model, x)
    assert torch.equal(got[0], want[0]) and got[1:] == want[1:]
    assert h.captures == 3


def _clip(model, x):
    loss = model(x).sum()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    return loss.detach(), norm


def test_clip_grad_norm_of_model_parameters_is_no_break_and_bit_identical():
    h = Harness()
    compiled = h.compile(_clip)
    torch.manual_seed(0)
    models = [nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    for _ in range(3):
        x = torch.randn(5, 4)
        got, want = compiled(models[0], x), _clip(models[1], x)
        assert all(torch.equal(a, b) for a, b in zip(got, want))
        assert all(torch.equal(a.grad, b.grad) for a, b in zip(models[0].parameters(), models[1].parameters()))
    assert not any("parameters()" in b.reason for b in h.breaks), h.breaks
    assert len(h.breaks) == 1, h.breaks  # backward(); clip_grad_norm_ is in the resume's graph (tensor_grouping.py)
