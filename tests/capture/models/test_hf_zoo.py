"""More transformers architectures, built small from their model type (random weights): each
forward is one graph without breaks, matches eager (outputs, and gradients in train mode), keeps
its torch calls inside the graph, and a second call compiles nothing."""
from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from autograph.testing.coverage import measure  # noqa: E402
from autograph.testing.models import build  # noqa: E402

pytestmark = pytest.mark.slow

TEXT = ["roberta", "distilbert", "albert", "electra", "deberta-v2", "bart", "mbart", "opt", "gpt_neo", "gptj",
        "gpt_neox", "codegen", "bloom", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "phi", "olmo",
        "stablelm", "granite", "starcoder2"]
VISION = ["vit", "deit", "swin", "convnext", "resnet", "dinov2", "beit", "regnet"]


@pytest.mark.parametrize("mode", ["eval", "train"])
@pytest.mark.parametrize("model_type", TEXT + VISION)
def test_architecture_is_one_graph_and_correct(model_type, mode):
    name = f"hf:{model_type}"
    cov = measure(name, lambda: build(name), mode, steady_iters=1)
    assert not cov.error, cov.error
    assert cov.correct, cov.detail
    assert not cov.breaks, [f"{b.reason} at {b.filename}:{b.lineno}" for b in cov.breaks]
    assert cov.graphs == 1, cov.graphs
    assert cov.coverage >= 0.99, f"{cov.torch_calls_outside} of {cov.torch_calls_eager} torch calls outside graphs"
    assert cov.second_call_compiles == 0
