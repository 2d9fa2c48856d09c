import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(n))

    def forward(self, x, skip_every=0):
        trace = []
        for i, layer in enumerate(self.layers):
            if skip_every and i % skip_every == 0:
                trace.append(f"skip{i}")
                continue
            x = torch.relu(layer(x)) + x
            trace.append(i)
        return x, trace

    def backward_pass(self, x):
        names = []
        for idx, layer in reversed(list(enumerate(self.layers))):
            x = layer(x)
            names.append(idx)
        for layer in self.layers[::-2]:
            x = x - layer.bias
        return x, names, len(self.layers[1:])


def main():
    torch.manual_seed(13)
    m = Stack(4)
    x = torch.ones(1, 2)
    for skip in (0, 2, 3):
        y, trace = m(x, skip)
        print([round(v, 4) for v in y.flatten().tolist()], trace)
    y, names, n = m.backward_pass(x)
    print([round(v, 4) for v in y.flatten().tolist()], names, n)
    m.layers.insert(1, nn.Identity())
    y, trace = m(x)
    print([round(v, 4) for v in y.flatten().tolist()], trace)
