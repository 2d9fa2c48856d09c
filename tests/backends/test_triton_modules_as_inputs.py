"""Modules as graph inputs through the Triton backend: parameters arrive as inputs (AOTAutograd
differentiates them), one compiled entry serves every instance, and gradients reach each
instance's own parameters."""
from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

import autograph

pytestmark = pytest.mark.triton


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)
        self.n = nn.LayerNorm(8)

    def forward(self, x):
        return x + torch.tanh(self.l(self.n(x)))


def test_parameters_are_inputs_and_gradients_reach_every_instance(triton_backend):
    compiled = []

    def backend(gm, example_inputs):
        compiled.append(example_inputs)
        return triton_backend(gm, example_inputs)

    autograph.reset()
    forward = autograph.compile(Block.forward, backend=backend)
    torch.manual_seed(0)
    blocks = [Block() for _ in range(3)]
    eager = copy.deepcopy(blocks)
    x = torch.randn(4, 8, requires_grad=True)
    for _step in range(2):
        h, r = x, x
        for b, e in zip(blocks, eager):
            h, r = forward(b, h), e(r)
        torch.testing.assert_close(h, r, atol=1e-5, rtol=1e-5)
        h.sum().backward()
        r.sum().backward()
        for b, e in zip(blocks, eager):
            for (name, p), q in zip(b.named_parameters(), e.parameters()):
                torch.testing.assert_close(p.grad, q.grad, atol=1e-5, rtol=1e-5, msg=name)
                with torch.no_grad():  # a plain SGD step, in place, between calls
                    p -= 0.1 * p.grad
                    q -= 0.1 * q.grad
                p.grad = q.grad = None
    assert len(compiled) == 1  # one entry for the three instances and both steps
    assert any(t is blocks[0].l.weight for t in compiled[0])  # the backend saw a real parameter as input
    autograph.reset()
