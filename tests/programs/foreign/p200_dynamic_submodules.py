import torch
from torch import nn


class Growing(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 0

    def grow(self, dim):
        layer = nn.Linear(dim, dim)
        nn.init.eye_(layer.weight)
        nn.init.constant_(layer.bias, float(self.n))
        setattr(self, f"layer{self.n}", layer)
        self.n += 1
        return layer

    def forward(self, x):
        for i in range(self.n):
            layer = getattr(self, f"layer{i}", None)
            if layer is None:
                continue
            x = layer(x)
        return x


def main():
    torch.set_num_threads(1)
    m = Growing()
    x = torch.ones(1, 2)
    for step in range(4):
        if step != 2:
            m.grow(2)
        print(step, m(x).tolist(), [n for n, _ in m.named_children()])
    delattr(m, "layer1")
    print(m(x).tolist(), hasattr(m, "layer1"), len(list(m.parameters())))
