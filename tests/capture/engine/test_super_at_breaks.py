"""A method calling zero-argument ``super()`` after a graph break (bytecode/resume.py
``super_first_local``): ``super()`` takes the first local of the running frame as its instance,
so the resume function receives the method's first parameter first, and keeps it live although
no instruction loads it by name."""
from __future__ import annotations

import torch

from tests.capture.checks import check


class Base(torch.nn.Module):
    def forward(self, x):
        return x + 1

    def scale(self, x, k):
        return x * k


class Child(Base):
    def forward(self, x):
        y = x * 2
        print(end="")  # graph break; the stack holds print's result at the break
        return super().forward(y)

    def scale(self, x, k):
        y = x - 1
        print(end="")
        return super().scale(y, k) + super().forward(y)


def test_super_after_a_break_in_forward():
    m = Child()
    check(lambda x: m(x), lambda: (torch.randn(3),))


def test_super_twice_after_a_break_with_more_live_locals():
    m = Child()
    check(lambda x, k: m.scale(x, k), lambda: (torch.randn(3), 3))
