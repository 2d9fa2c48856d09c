"""``torch._C._group_tensors_by_device_and_dtype`` is answered at capture time
(families/tensor_grouping.py): the same groups, in the same order, of the same tensor objects,
with no graph break; so ``clip_grad_norm_`` after ``backward()`` is one graph."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._foreach_utils import _group_tensors_by_device_and_dtype

from tests.capture.harness import Harness


def _grouped(a, b, c):
    groups = _group_tensors_by_device_and_dtype([[a, b, c], [c, None, a]], with_indices=True)
    out = []
    for (device, dtype), ((first, second), indices) in groups.items():
        out.append((device, dtype, indices, [t is a for t in first], second[0] is None))
        out.extend(torch._foreach_mul(first, 2.0))
    return out


def test_groups_are_the_real_calls_with_the_same_tensors_and_no_break():
    args = torch.randn(3), torch.randn(2, dtype=torch.float64), torch.randn(4)
    h = Harness()
    got = h.compile(_grouped)(*args)
    want = _grouped(*args)
    assert h.breaks == [] and h.captures == 1
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert torch.equal(g, w) if isinstance(w, torch.Tensor) else g == w


def _clip_step(model, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    return loss, norm


def test_clip_grad_norm_after_backward_is_no_break():
    def run(step):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        seen = []
        for _ in range(3):
            model.zero_grad()
            seen.extend(step(model, torch.randn(5, 4), torch.randint(0, 3, (5,))))
            seen.extend(p.grad.clone() for p in model.parameters())
        return seen
    want = run(_clip_step)
    h = Harness()
    got = run(h.compile(_clip_step))
    assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(got, want))
    assert ["backward" in b.reason for b in h.breaks] == [True]  # the resume after it is one graph
