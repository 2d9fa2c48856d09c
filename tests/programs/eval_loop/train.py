"""Train/eval switches, an eval loop under no_grad, a DataLoader, state_dict checkpoints."""
from __future__ import annotations

import hashlib
import io

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(12, 24)
        self.bn = nn.BatchNorm1d(24)
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(24, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.drop(F.relu(self.bn(self.fc1(x)))))


def train_step(model, opt, x, y):
    model.train()
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total, correct = 0.0, 0
    for x, y in loader:
        logits = model(x)
        total += F.cross_entropy(logits, y, reduction="sum").item()
        correct += int((logits.argmax(1) == y).sum())
    return total, correct


def checkpoint(model, opt) -> str:
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buffer)
    state = model.state_dict()
    return hashlib.sha256(b"".join(t.numpy().tobytes() for t in state.values())).hexdigest()[:16]


def main(epochs: int = 3) -> None:
    torch.manual_seed(0)
    model = Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(48, 12, generator=gen), torch.randint(0, 3, (48,), generator=gen)
    train = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=8, shuffle=True,
                       generator=torch.Generator().manual_seed(2))
    held_out = DataLoader(TensorDataset(x[32:], y[32:]), batch_size=8)
    for epoch in range(epochs):
        for xb, yb in train:
            print("loss", train_step(model, opt, xb, yb).item().hex())
        total, correct = evaluate(model, held_out)
        print("eval", epoch, total.hex(), correct, "ckpt", checkpoint(model, opt))
