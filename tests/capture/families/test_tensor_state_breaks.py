"""Registering a tensor hook and assigning a tensor's own state (``.data``, ``.grad``) are
breaks of their own kinds with hints (families/tensors.py ``tensor-hook``,
``tensor-state-store``), and the code around them still compiles and matches eager."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


def hooked(x):
    y = x * 2
    y.register_hook(lambda grad: grad * 3)
    return (y * y).sum()


def test_register_hook_is_a_tensor_hook_break():
    h = Harness()
    compiled = h.compile(hooked)
    for _ in range(2):
        a, b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
        compiled(a).backward()
        hooked(b).backward()
        torch.testing.assert_close(a.grad, b.grad)
    assert [b.kind for b in h.breaks] == ["tensor-hook"]


def swap_data(x, w):
    w.data = x * 2
    return w + 1


def test_data_assignment_is_a_tensor_state_store_break():
    h = Harness()
    compiled = h.compile(swap_data)
    for _ in range(2):
        w1, w2 = torch.zeros(2), torch.zeros(2)
        torch.testing.assert_close(compiled(torch.ones(2), w1), swap_data(torch.ones(2), w2))
        torch.testing.assert_close(w1, w2)
    assert [b.kind for b in h.breaks] == ["tensor-state-store"]
