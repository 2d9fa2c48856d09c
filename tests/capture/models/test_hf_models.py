"""Issue #4 done-when on real third-party code: GPT-2, BERT, Llama (small configs, random
weights) in eval + no_grad and train + backward: correct, >= 99% of torch calls inside graphs,
at most one graph per forward, and a second call compiles nothing."""
from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from autograph.testing.coverage import measure  # noqa: E402
from autograph.testing.models import build  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("mode", ["eval", "train"])
@pytest.mark.parametrize("name", ["gpt2", "bert", "llama"])
def test_hf_model_is_captured_whole_and_correct(name, mode):
    cov = measure(name, lambda: build(name), mode, steady_iters=1)
    assert not cov.error, cov.error
    assert cov.correct, cov.detail
    assert cov.graphs == 1, f"{cov.graphs} graphs; breaks: {[b.reason for b in cov.breaks]}"
    assert not cov.breaks, [f"{b.reason} at {b.filename}:{b.lineno}" for b in cov.breaks]
    assert cov.coverage >= 0.99, f"{cov.torch_calls_outside} of {cov.torch_calls_eager} torch calls outside graphs"
    assert cov.second_call_compiles == 0


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_causal_lm_with_labels_and_tuple_outputs(name):
    """Training usage: the loss is computed inside the graph (incl. the loss-function lookup and its
    logged warning, replayed after the graph); ``return_dict=False`` returns tuples."""
    def factory():
        model, inputs = build(name)
        return model, {**inputs, "labels": inputs["input_ids"], "return_dict": False}

    cov = measure(name, factory, "train", steady_iters=1)
    assert not cov.error and cov.correct, cov.error or cov.detail
    assert cov.graphs == 1 and not cov.breaks, [b.reason for b in cov.breaks]
    assert cov.coverage >= 0.99 and cov.second_call_compiles == 0
