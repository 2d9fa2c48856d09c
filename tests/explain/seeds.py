"""The seeds' examples (shared/seeds/002): real source lines, so markers and file:line can be checked."""
import numpy as np
import torch


def toy_example(a, b):
    """The toy example of the Dynamo explainability proposal."""
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def foo2(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    if x.sum() > 0:
        x = x * 2
    return x * b


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.lin(x))


def side_effects(x):
    y = x + 1
    print("side effect")
    z = np.ones(3)
    return y * 2 + float(z.sum())


def line_of(fn, text: str) -> int:
    """The file line number of the first line of ``fn`` containing ``text``."""
    import inspect

    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(f"{text!r} not in {fn.__qualname__}")


def helper(x):
    print("inside helper")
    return x * 2


def outer(x):
    y = torch.sin(x)
    return helper(y) + 1


def break_inside_with(a, b):
    x = a.sin()
    with torch.no_grad():
        if x.sum() > 0:  # graph break inside a `with` block: the entry re-enters it
            x = x * 2
    return x + b
