"""Nested grad-mode and inference-mode blocks captured into one graph leave torch's state as
eager Python leaves it when an operation inside raises only at run time (an index out of
range): every block's exit runs, innermost first (found by the blocks sweep:
``set_grad_enabled(False)`` around ``inference_mode()`` left grad mode off)."""
from __future__ import annotations

import pytest
import torch

import autograph


def _block(inference: bool):
    return torch.inference_mode() if inference else torch.set_grad_enabled(False)


@pytest.mark.parametrize("outer_inference", [False, True])
@pytest.mark.parametrize("inner_inference", [False, True])
@pytest.mark.parametrize("graph_break", [False, True])
def test_nested_mode_blocks_are_left_when_the_graph_raises(outer_inference, inner_inference, graph_break, capsys):
    def fn(x, idx):
        y = x.clone()
        with _block(outer_inference):
            with _block(inner_inference):
                if graph_break:
                    print("break")
                y = torch.nn.functional.embedding(idx, x.view(-1, 1)).view(-1)
        return y + 1

    compiled = autograph.compile(fn, backend="eager")
    x = torch.arange(4.0)
    assert torch.equal(compiled(x, torch.tensor([1])), fn(x, torch.tensor([1])))
    for f in (fn, compiled):
        with pytest.raises(IndexError):
            f(x, torch.tensor([6]))
        assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled(), f
