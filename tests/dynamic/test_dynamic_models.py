"""Dynamic shapes on a model: GPT-2 (small config) over sequence lengths 8..64 compiles at most twice."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.guards.model import SHAPE_RELATION


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()
    yield
    autograph.reset()


def _logits(out):
    return out.logits if hasattr(out, "logits") else out[0]


@pytest.mark.slow
def test_gpt2_sequence_lengths_8_to_64_compile_at_most_twice():
    pytest.importorskip("transformers")
    from autograph.testing import models

    model, _ = models.build("gpt2")
    model.eval()
    compiled = autograph.compile(model, backend="eager")
    shim = compiled._autograph_shim
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for L in range(8, 65):
            ids = torch.randint(0, 50, (2, L), generator=gen)
            torch.testing.assert_close(_logits(compiled(input_ids=ids)), _logits(model(input_ids=ids)))
    assert shim.stats.captures <= 2, shim.stats.recompiles
    assert shim.stats.errors == []          # the dynamic capture did not fall back to static
    newest = shim.entries[-1].guards.guards
    assert any(g.kind is SHAPE_RELATION for g in newest)


@pytest.mark.slow
@pytest.mark.triton
def test_gpt2_dynamic_sequence_length_with_the_triton_backend():
    """The first (static) entry runs Triton kernels; the dynamic entry runs one set of Triton
    kernels (sizes as kernel arguments) for every later length, and is correct for each."""
    pytest.importorskip("transformers")
    pytest.importorskip("triton")
    from autograph.testing import models

    model, _ = models.build("gpt2")
    model.eval()
    compiled = autograph.compile(model, backend="triton")
    shim = compiled._autograph_shim
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for L in (8, 9, 12, 20, 33):
            ids = torch.randint(0, 50, (2, L), generator=gen)
            torch.testing.assert_close(_logits(compiled(input_ids=ids)), _logits(model(input_ids=ids)))
    assert shim.stats.captures == 2
    dynamic_graphs = shim.entries[-1].result.graphs[0].compiled.graphs
    assert dynamic_graphs and all(g.kernels and g.fallback_reason is None for g in dynamic_graphs), \
        [g.fallback_reason for g in dynamic_graphs]


@pytest.mark.slow
@pytest.mark.triton
def test_gpt2_training_step_with_dynamic_sequence_length_runs_triton_kernels():
    """Forward and backward of the dynamic entry are symbolic Triton graphs; gradients match eager."""
    import copy

    pytest.importorskip("transformers")
    pytest.importorskip("triton")
    from autograph.testing import models

    model, _ = models.build("gpt2")
    model.train()
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0  # deterministic, so eager and compiled see the same function
    ref = copy.deepcopy(model)
    compiled = autograph.compile(model, backend="triton")
    shim = compiled._autograph_shim
    gen = torch.Generator().manual_seed(2)
    for L in (8, 9, 12):
        ids = torch.randint(0, 50, (2, L), generator=gen)
        model.zero_grad()
        ref.zero_grad()
        out, expected = _logits(compiled(input_ids=ids)), _logits(ref(input_ids=ids))
        torch.testing.assert_close(out, expected, atol=1e-4, rtol=1e-4)
        out.square().mean().backward()
        expected.square().mean().backward()
        for (name, p), q in zip(model.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-3, msg=name)
    assert shim.stats.captures == 2
    dynamic_graphs = shim.entries[-1].result.graphs[0].compiled.graphs
    assert [g.kind for g in dynamic_graphs] == ["forward", "backward"]
    assert all(g.kernels and g.fallback_reason is None for g in dynamic_graphs), \
        [g.fallback_reason for g in dynamic_graphs]
