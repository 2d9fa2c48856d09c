"""``is`` between tensors: an in-place method returns the very tensor it changed."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def inplace_result_is_input(x):
    y = x.add_(1)
    return x is y, y is x, x is not y


def inplace_on_a_fresh_tensor(x):
    z = x.clone()
    y = z.mul_(2)
    return y is z, y is x


def outofplace_is_new(x):
    return x.add(1) is x


def test_inplace_result_is_its_input():
    h = check(inplace_result_is_input, lambda: (torch.ones(4),))
    assert h.breaks == []


def test_inplace_result_on_a_tensor_made_in_the_function():
    h = check(inplace_on_a_fresh_tensor, lambda: (torch.ones(4),))
    assert h.breaks == []


def test_outofplace_result_is_a_new_tensor():
    check(outofplace_is_new, lambda: (torch.ones(4),))


def test_identity_holds_across_a_break():
    def fn(x):
        y = x.add_(1)
        cond = x is y
        print("graph break")
        x.add_(1)
        return x is y, cond

    h = Harness()
    f = h.compile(fn)
    assert f(torch.ones(4)) == fn(torch.ones(4)) == (True, True)
