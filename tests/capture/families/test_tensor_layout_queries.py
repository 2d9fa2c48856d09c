"""Layout and backend queries of a tensor (``is_nested``, ``is_sparse_csr``, ``is_mkldnn``,
``is_cpu``, ``itemsize``, ``nbytes``...) are constants answered from its guarded metadata
(families/tensors.py): ``nn.MultiheadAttention`` asks ``query.is_nested`` on every forward."""
from __future__ import annotations

import torch
from torch import nn

from tests.capture.harness import Harness


def _queries(x):
    flags = (x.is_nested, x.is_sparse_csr, x.is_mkldnn, x.is_cpu, x.is_xpu, x.is_mps, x.is_meta,
             x.is_quantized, x.is_sparse)
    return x * x.nbytes + x.itemsize, flags


def test_layout_queries_are_constants_in_one_graph():
    h = Harness()
    compiled = h.compile(_queries)
    for _ in range(3):
        x = torch.randn(3, 4)
        got, want = compiled(x), _queries(x)
        assert torch.equal(got[0], want[0]) and got[1] == want[1]
    assert h.captures == 1 and h.breaks == []


def _attend(m, x):
    return m(x, x, x, need_weights=False)[0]


def _encode(m, x):
    return m(x)


def _run_twice_bit_identical(fn, module, make):
    h = Harness()
    compiled = h.compile(fn)
    for i in range(3):
        torch.manual_seed(i)
        x = make()
        got, want = compiled(module, x), fn(module, x)
        assert torch.equal(got, want)
        got.sum().backward()
    return h


def test_multihead_attention_forward_is_one_graph_and_bit_identical():
    torch.manual_seed(0)
    attn = nn.MultiheadAttention(16, 2, batch_first=True)
    h = _run_twice_bit_identical(_attend, attn, lambda: torch.randn(2, 4, 16))
    assert h.captures == 1 and h.breaks == []


def test_transformer_encoder_layer_forward_is_one_graph_and_bit_identical():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    h = _run_twice_bit_identical(_encode, layer, lambda: torch.randn(2, 4, 16))
    assert h.captures == 1 and h.breaks == []
