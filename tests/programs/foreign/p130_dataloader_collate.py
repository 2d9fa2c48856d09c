import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, SequentialSampler


class Pairs(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n * 2, dtype=torch.float32).reshape(n, 2)
        self.y = torch.arange(n) % 3

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"x": self.x[i] * 0.5, "y": int(self.y[i]), "name": f"s{i}"}


def collate(items):
    xs = torch.stack([it["x"] for it in items])
    ys = torch.tensor([it["y"] for it in items])
    return {"x": xs, "y": ys, "names": [it["name"] for it in items]}


def step(batch, w):
    logits = batch["x"] @ w
    loss = torch.nn.functional.cross_entropy(logits, batch["y"])
    pred = logits.argmax(dim=1)
    correct = (pred == batch["y"]).sum().item()
    return loss, correct


def run_epoch(loader, w):
    total, seen, names = 0.0, 0, []
    for batch in loader:
        loss, correct = step(batch, w)
        total += loss.item() * len(batch["names"])
        seen += correct
        names.append("+".join(batch["names"]))
    return round(total, 4), seen, names


def main():
    torch.manual_seed(0)
    w = torch.randn(2, 3)
    ds = Pairs(7)
    loader = DataLoader(ds, batch_size=3, collate_fn=collate, num_workers=0)
    print(run_epoch(loader, w))
    sampler = BatchSampler(SequentialSampler(range(len(ds))), batch_size=2, drop_last=True)
    loader2 = DataLoader(ds, batch_sampler=sampler, collate_fn=collate)
    print(run_epoch(loader2, w))
    print(run_epoch(loader2, w * -1))
