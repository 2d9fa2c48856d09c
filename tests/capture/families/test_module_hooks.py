"""Modules with forward hooks called from captured code (capture/families/module_hooks.py):
the call is a graph break whose hooks run in Python around the module's compiled forward."""
from __future__ import annotations

import torch
import torch.nn as nn

import autograph
from autograph.runtime.shim import shim_for


class Block(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x, scale=1.0):
        return x + torch.relu(self.lin(x)) * scale


class Stack(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(n))
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.out(x).sum()


def _hooked_stack(log):
    torch.manual_seed(0)
    model = Stack()
    for i, block in enumerate(model.blocks):
        block.register_forward_pre_hook(lambda m, args, i=i: log.append(("pre", i)) or (args[0] * 2,))
        block.register_forward_hook(lambda m, args, out, i=i: log.append(("post", i, m is model.blocks[i])))
    return model


def test_hooks_run_in_order_around_compiled_forwards():
    log_eager, log_compiled = [], []
    eager = _hooked_stack(log_eager)
    model = _hooked_stack(log_compiled)
    x = torch.randn(2, 4)
    expected = eager(x)
    compiled = autograph.compile(model)
    for _ in range(2):
        assert torch.equal(compiled(x), expected)
    assert log_compiled == log_eager * 2  # same hooks, same order, the real module passed
    forward = shim_for(Block.forward)
    assert forward.entries and any(e.result.graphs for e in forward.entries)  # the forward compiled
    breaks = [b for s in autograph.report().functions if s.qualname.startswith("Stack.forward")
              for b in s.breaks]
    assert breaks and all("with hooks registered" in b.reason for b in breaks)


def test_kwargs_pre_hook_and_output_replacing_hook():
    def make():
        torch.manual_seed(1)
        block = Block()
        block.register_forward_pre_hook(lambda m, args, kwargs: (args, {"scale": 3.0}), with_kwargs=True)
        block.register_forward_hook(lambda m, args, kwargs, out: out - kwargs["scale"], with_kwargs=True)
        return block

    def f(block, x):
        return block(x) * 2

    x = torch.randn(2, 4)
    expected = f(make(), x)
    block = make()
    compiled = autograph.compile(f)
    assert torch.equal(compiled(block, x), expected)
    assert torch.equal(compiled(block, x), expected)


def test_backward_hooks_make_the_call_plain():
    grads = []

    def make():
        torch.manual_seed(2)
        block = Block()
        block.register_full_backward_hook(lambda m, gin, gout: grads.append(gout[0].clone()))
        return block

    def f(block, x):
        return block(x).sum()

    x = torch.randn(2, 4, requires_grad=True)
    f(make(), x).backward()
    eager_grads = list(grads)
    grads.clear()
    autograph.compile(f)(make(), x).backward()
    assert len(grads) == len(eager_grads) == 1 and torch.equal(grads[0], eager_grads[0])
