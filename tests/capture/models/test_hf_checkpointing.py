"""A transformers model with ``gradient_checkpointing_enable()`` in train mode: every encoder layer
goes through ``torch.utils.checkpoint.checkpoint(partial(forward, self, **kwargs), hidden,
use_reentrant=False)`` (families/checkpoints.py); the whole forward is one graph with one
checkpoint node per layer, and under the eager backend the outputs and every gradient are plain
Python's bit for bit -- BERT's dropout included, replayed for the recomputation."""
from __future__ import annotations

import pytest
import torch

pytest.importorskip("transformers")

from autograph.testing.models import build  # noqa: E402
from tests.capture.families.test_checkpoints import TAG, EagerRecorder  # noqa: E402
from tests.capture.harness import Harness  # noqa: E402

pytestmark = pytest.mark.slow


def loss_of(model, input_ids):
    return model(input_ids=input_ids).last_hidden_state.square().mean()


def _step(fn, model, input_ids, seed):
    torch.manual_seed(seed)
    model.zero_grad(set_to_none=True)
    loss = fn(model, input_ids)
    loss.backward()
    return [loss.detach(), *(p.grad for p in model.parameters()), torch.rand(2)]


def test_gradient_checkpointing_bert_is_one_graph_and_exact_in_train_mode():
    model, inputs = build("bert")
    model.gradient_checkpointing_enable()
    # (it also hooks the input embedding to make its output require grad: a module hook, a
    # `module-hooks` break of its own that this test is not about)
    model.disable_input_require_grads()
    model.train()
    assert model.config.hidden_dropout_prob > 0
    h = Harness(backend=EagerRecorder())
    compiled = h.compile(loss_of)
    for seed in range(2):
        expected = _step(loss_of, model, inputs["input_ids"], seed)
        got = _step(compiled, model, inputs["input_ids"], seed)
        assert len(got) == len(expected)
        for e, g in zip(expected, got):  # (the pooler's parameters get no gradient either way)
            assert (e is None and g is None) or (e is not None and g is not None and torch.equal(e, g))
        assert sum(e is not None for e in expected) > len(expected) // 2
    assert h.captures == 1 and not h.breaks, [b.reason for b in h.breaks]
    (gm,) = h.backend.graphs
    assert sum(n.target is TAG for n in gm.graph.nodes) == model.config.num_hidden_layers
