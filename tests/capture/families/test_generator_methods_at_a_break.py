"""A generator method called after a graph break (``self.parameters()`` in a generator
expression) is called as it is: calling it runs no code, so it is not compiled (capturing
a generator function's body failed and printed a warning)."""
from __future__ import annotations

import torch

from tests.capture.harness import Harness


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(x), sum(p.numel() for p in self.parameters())


def test_parameters_generator_method_called_after_a_break():
    torch.manual_seed(0)
    m = Net()
    c = Harness().compile(Net.forward)
    for _ in range(2):
        got, want = c(m, torch.ones(1, 2)), m(torch.ones(1, 2))
        torch.testing.assert_close(got[0], want[0])
        assert got[1] == want[1] == 6


def test_user_generator_method_called_after_a_break():
    class Bag:
        def __init__(self):
            self.items = [1.0, 2.0]

        def each(self):
            for v in self.items:
                yield v

    def f(x, bag):
        return x * sum(v for v in bag.each())

    c = Harness().compile(f)
    bag = Bag()
    torch.testing.assert_close(c(torch.ones(1), bag), f(torch.ones(1), bag))
    bag.items.append(4.0)
    torch.testing.assert_close(c(torch.ones(1), bag), f(torch.ones(1), bag))
