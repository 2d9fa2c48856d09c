"""``seq[t]`` with a tensor made of constants only (``torch.as_tensor(2)``): its value is known
to the fake tensor mode (``FakeTensor.constant``), so ``t.__index__()`` runs on the real tensor at
capture time and the function stays one graph. A tensor written with a run-time value is no
constant any more: that index is still a break, with eager's result."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.runtime import stats


def _fallbacks() -> int:
    return sum(bool(s.errors) for s in stats.all_stats())


def index_with_constant_tensor(a, b):
    items = [a, b, a + 1, b + 1]
    return items[torch.as_tensor(2)], (a, b)[torch.tensor(-1)]


def test_constant_tensor_index_is_folded():
    autograph.reset()
    f = autograph.compile(index_with_constant_tensor, backend="eager", fullgraph=True)
    a, b = torch.randn(2), torch.randn(2)
    got, ref = f(a, b), index_with_constant_tensor(a, b)
    assert torch.equal(got[0], ref[0]) and got[1] is b
    assert _fallbacks() == 0


def index_after_run_time_write(a, b, k):
    items = [a, b, a + 1]
    t = torch.tensor(0)
    t.add_(k)  # no longer a constant
    return items[t]


@pytest.mark.parametrize("k", [1, 2])
def test_tensor_written_with_a_run_time_value_is_not_folded(k):
    autograph.reset()
    f = autograph.compile(index_after_run_time_write, backend="eager")
    a, b = torch.randn(2), torch.randn(2)
    assert torch.equal(f(a, b, torch.tensor(k)), index_after_run_time_write(a, b, torch.tensor(k)))


def index_with_float_tensor(a, b):
    return [a, b][torch.as_tensor(1.0)]


def test_float_tensor_index_raises_as_in_python():
    autograph.reset()
    f = autograph.compile(index_with_float_tensor, backend="eager")
    with pytest.raises(TypeError, match="integer tensors"):
        f(torch.randn(2), torch.randn(2))
