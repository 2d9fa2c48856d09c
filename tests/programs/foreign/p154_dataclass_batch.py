import dataclasses

import torch


@dataclasses.dataclass
class Batch:
    x: torch.Tensor
    y: torch.Tensor
    weight: float = 1.0
    tags: list = dataclasses.field(default_factory=list)

    def loss(self, w):
        err = (self.x @ w - self.y) ** 2
        return err.mean() * self.weight

    @property
    def size(self):
        return self.x.shape[0]


def process(batches, w):
    out = []
    for b in batches:
        b.tags.append(f"n{b.size}")
        scaled = dataclasses.replace(b, weight=b.weight * 2)
        out.append((round(b.loss(w).item(), 4), round(scaled.loss(w).item(), 4), scaled.tags is b.tags))
    return out


def main():
    torch.manual_seed(16)
    w = torch.randn(2)
    batches = [Batch(torch.randn(3, 2), torch.randn(3)), Batch(torch.randn(5, 2), torch.randn(5), weight=0.5)]
    print(process(batches, w))
    print(process(batches[::-1], w * 2))
    print([b.tags for b in batches], dataclasses.fields(batches[0])[2].name, batches[0] == batches[0])
    d = dataclasses.asdict(batches[1])
    print(sorted(d), d["weight"], type(d["x"]).__name__)
