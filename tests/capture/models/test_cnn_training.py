"""The small CNN (conv, batchnorm, residual add, pooling): eval and a 5-step training loop whose
losses, weights and batchnorm statistics match eager step by step (optimizer outside the graph)."""
from __future__ import annotations

import copy

import pytest
import torch

import autograph
from autograph.testing.compare import assert_same
from autograph.testing.coverage import measure
from autograph.testing.models import build

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_cnn_one_graph_full_coverage(mode):
    cov = measure("cnn", lambda: build("cnn"), mode, steady_iters=1)
    assert not cov.error and cov.correct, cov.error or cov.detail
    assert cov.graphs == 1 and not cov.breaks and cov.coverage >= 0.99 and cov.second_call_compiles == 0


def test_cnn_training_loop_matches_eager_for_five_steps():
    model, _ = build("cnn")
    reference = copy.deepcopy(model)
    compiled = autograph.compile(model, backend="eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    losses, ref_losses = [], []
    for _ in range(5):
        x = torch.randn(4, 3, 16, 16, generator=gen)
        y = torch.randint(0, 10, (4,), generator=gen)
        for net, optimizer, out in ((compiled, opt, losses), (reference, ref_opt, ref_losses)):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            optimizer.step()
            out.append(loss.item())
        assert losses[-1] == pytest.approx(ref_losses[-1], rel=1e-4, abs=1e-4)
    assert losses[-1] < losses[0]  # it actually trained
    assert_same(dict(reference.state_dict()), dict(model.state_dict()))
