"""Attributes stored on a function object (``fn.flag = True``) are read and guarded."""
from __future__ import annotations

import torch

import autograph


def flagged(x):
    if flagged.pred:
        return x * flagged.scale
    return x - 1


def test_function_attribute_read_in_one_graph_and_guarded():
    from tests.capture.checks import check
    flagged.pred, flagged.scale = True, 3
    h = check(flagged, lambda: (torch.randn(3),))
    assert h.breaks == []


def test_changing_the_attribute_recompiles():
    counts = []

    def backend(gm, example_inputs):
        counts.append(gm)
        return gm.forward

    flagged.pred, flagged.scale = True, 2
    f = autograph.compile(flagged, backend=backend)
    x = torch.ones(2)
    assert torch.equal(f(x), x * 2)
    flagged.pred = False
    assert torch.equal(f(x), x - 1)
    flagged.pred, flagged.scale = True, 5
    assert torch.equal(f(x), x * 5)
    assert len(counts) == 3
