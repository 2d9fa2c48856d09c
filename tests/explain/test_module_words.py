"""A module tree's guards in one line of words (explain/module_words.py)."""
from __future__ import annotations

import torch
from torch import nn

import autograph


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2, bias=False)
        self.proj.weight.requires_grad_(False)
        self.register_buffer("scale", torch.ones(2))
        self.eps = 0.5

    def forward(self, x):
        return self.proj(x) * self.scale + self.eps


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x).relu()


def test_a_module_tree_reads_as_one_line():
    autograph.reset()
    m = autograph.compile(Outer(), backend="eager")
    m(torch.randn(3, 4))
    words = autograph.inspect(m).entries[0].guards
    assert ("self: an Outer whose inner is an Inner(scale float32 (2,), eps=0.5) whose proj is a "
            "Linear(weight float32 (2, 4) frozen, bias=None); no hooks on self.inner, self.inner.proj") in words
    assert "no global module hooks (torch.nn.modules.module)" in words
    assert "x: Tensor float32 cpu size (3, 4) stride (4, 1) requires_grad=False" in words
    # nothing folded is lost: the guard code still checks every member
    code = autograph.inspect(m).entries[0].guard_source
    assert "self.inner.proj.weight" in code and "___no_hooks(self.inner," in code
    autograph.reset()
