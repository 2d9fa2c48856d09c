import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset, WeightedRandomSampler


def epoch_order(loader):
    seen = []
    total = torch.zeros(())
    for xb, yb in loader:
        seen.extend(yb.tolist())
        total = total + xb.sum()
    return seen, round(total.item(), 3)


def main():
    torch.manual_seed(19)
    ds = TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6))
    g = torch.Generator().manual_seed(5)
    loader = DataLoader(ds, batch_size=4, sampler=RandomSampler(ds, generator=g))
    print(epoch_order(loader))
    print(epoch_order(loader))
    weights = torch.tensor([0.0, 0.0, 1.0, 1.0, 5.0, 0.0])
    ws = WeightedRandomSampler(weights, num_samples=5, replacement=True, generator=torch.Generator().manual_seed(1))
    print(epoch_order(DataLoader(ds, batch_size=2, sampler=ws)))
    print(epoch_order(DataLoader(ds, batch_size=3, shuffle=True)))
