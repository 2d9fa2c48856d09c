"""``nn.Parameter(t)`` made in the compiled function (families/torch_objects.py): a break of its own
kind; the parameter is made in Python and the code around it is captured."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


def _make_and_use(x):
    w = torch.nn.Parameter(x * 2)
    y = (w * 3).sum()
    y.backward()
    return w, w.grad, type(w), w.is_leaf, w.requires_grad


def test_a_parameter_made_in_the_call_is_a_leaf_parameter_as_in_eager():
    h = Harness()
    compiled = h.compile(_make_and_use)
    for x in (torch.ones(2), torch.arange(3.0)):
        want, got = _make_and_use(x), compiled(x)
        assert torch.equal(want[0], got[0]) and torch.equal(want[1], got[1]) and want[2:] == got[2:]
    assert "parameter-made-in-call" in {b.kind for b in h.breaks}
    assert len(h.backend.graphs) >= 2  # the tensor work before and after it is captured
