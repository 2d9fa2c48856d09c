import torch
from torch import nn


def inspect(model):
    rows = []
    for name, p in model.named_parameters():
        rows.append((name, type(p).__name__, isinstance(p, nn.Parameter), type(p.data).__name__,
                     isinstance(p * 1, nn.Parameter), p.is_leaf))
    return rows


def swap(model, scale):
    with torch.no_grad():
        old = model.weight.data
        model.weight.data = old * scale
    return old is model.weight.data, type(model.weight).__name__, round(model.weight.sum().item(), 4)


def main():
    torch.manual_seed(21)
    m = nn.Linear(2, 2)
    for row in inspect(m):
        print(row)
    print(swap(m, 2.0))
    print(swap(m, 0.5))
    m.bias = nn.Parameter(torch.zeros(2), requires_grad=False)
    print(inspect(m)[-1], m.bias.requires_grad)
    print(repr(m.bias))
