import gc
import weakref

import torch
from torch import nn

FREED = []


class Head(nn.Module):
    def __init__(self, tag):
        super().__init__()
        self.tag = tag
        self.lin = nn.Linear(2, 1)
        weakref.finalize(self, FREED.append, tag)

    def forward(self, x):
        return self.lin(x).sum() * 2


class Buffer:
    def __init__(self, n):
        self.data = torch.zeros(n)


def use(model, buf, x):
    buf.data.add_(model(x).detach())
    return buf.data.sum().item()


def main():
    torch.manual_seed(37)
    refs = []
    for i in range(3):
        m = Head(f"h{i}")
        b = Buffer(2)
        refs.append((weakref.ref(m), weakref.ref(b), weakref.ref(b.data)))
        print(i, round(use(m, b, torch.ones(1, 2)), 4))
        del m, b
        if i == 2:
            gc.collect()
        print([tuple(r() is None for r in trio) for trio in refs], FREED)
