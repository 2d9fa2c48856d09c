import torch
from torch.utils.data import DataLoader, IterableDataset


class Stream(IterableDataset):
    def __init__(self, n, seed):
        self.n = n
        self.seed = seed
        self.epochs = 0

    def __iter__(self):
        self.epochs += 1
        g = torch.Generator().manual_seed(self.seed + self.epochs)
        for i in range(self.n):
            x = torch.randn(3, generator=g)
            if x.sum() < -1:
                continue
            yield x, i


def consume(loader, limit):
    total, idx = 0.0, []
    for b, (x, i) in enumerate(loader):
        total += x.sum().item()
        idx.extend(i.tolist() if torch.is_tensor(i) else [i])
        if b + 1 >= limit:
            break
    return round(total, 4), idx


def main():
    torch.manual_seed(26)
    ds = Stream(10, 3)
    loader = DataLoader(ds, batch_size=3)
    print(consume(loader, 10), ds.epochs)
    print(consume(loader, 1), ds.epochs)
    print(consume(DataLoader(ds, batch_size=None), 4), ds.epochs)
