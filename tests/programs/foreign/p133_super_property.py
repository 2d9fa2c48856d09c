import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.weight = nn.Parameter(torch.linspace(-1, 1, dim))

    @property
    def norm(self):
        return self.weight.norm()

    def forward(self, x):
        return x * self.weight

    def describe(self):
        return f"{type(self).__name__}(dim={self.dim})"


class Scaled(Base):
    def __init__(self, dim, scale):
        super().__init__(dim)
        self.scale = scale

    @property
    def norm(self):
        return super().norm * self.scale

    def forward(self, x):
        return super().forward(x) * self.scale + self.norm


class Shifted(Scaled):
    def forward(self, x):
        y = super().forward(x)
        return y - y.mean()

    def describe(self):
        return "shifted " + super().describe()


def apply_all(models, x):
    out = []
    for m in models:
        y = m(x)
        out.append((m.describe(), round(m.norm.item(), 4), [round(v, 4) for v in y.tolist()]))
    return out


def main():
    torch.set_num_threads(1)
    models = [Base(3), Scaled(3, 2.0), Shifted(3, -1.0)]
    x = torch.tensor([1.0, 2.0, 3.0])
    for row in apply_all(models, x):
        print(row)
    models[1].scale = 0.5
    with torch.no_grad():
        models[2].weight.mul_(2)
    for row in apply_all(models, x):
        print(row)
