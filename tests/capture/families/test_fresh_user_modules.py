"""A user ``nn.Module`` class with no ``__init__``/``__new__`` of its own built inside compiled
code (families/modules.py ``construct_torch_module``): construction runs only
``nn.Module.__init__()``, so it is built at capture time and its ``forward`` is inlined; a class
with its own ``__init__`` (user code) is not built at capture time."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


class Concat(torch.nn.Module):
    def forward(self, x, y):
        return torch.relu(torch.cat((x, y), dim=1))


class Counting(torch.nn.Module):
    made = 0

    def __init__(self):
        super().__init__()
        Counting.made += 1  # user code with a side effect

    def forward(self, x):
        return x + 1


def build_and_call(x, y):
    return Concat()(x, y) * 2


def test_user_module_without_init_in_one_graph():
    h = check(build_and_call, lambda: (torch.randn(2, 3), torch.randn(2, 3)))
    assert h.breaks == []


def build_module_with_init(x):
    return Counting()(x)


def test_user_module_with_init_runs_its_init_each_call():
    Counting.made = 0
    check(build_module_with_init, lambda: (torch.randn(2),), calls=3)
    assert Counting.made == 6  # three eager calls and three compiled calls


def returns_made_modules(x):
    act = torch.nn.ReLU()
    soft = torch.nn.Softmax(dim=-1)
    return soft(act(x)), act, [act, soft]


def test_stateless_modules_made_in_the_call_are_made_again_when_returned():
    h = Harness()
    f = h.compile(returns_made_modules)
    x = torch.randn(3)
    first, second = f(x), f(x)
    torch.testing.assert_close(first[0], returns_made_modules(x)[0])
    assert type(first[1]) is torch.nn.ReLU and first[1] is first[2][0] and first[1] is not second[1]
    assert first[2][1].dim == -1 and h.breaks == []
