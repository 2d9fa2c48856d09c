"""The program of issue 26: an MLP, ``train_step`` with AdamW, ``main()`` looping over it.
Run as ``AUTOGRAPH_PACKAGES=mypkg python run.py`` (run.py: ``from mypkg.train import main; main()``)."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.relu(self.fc1(x)))


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def main(steps: int = 10) -> None:
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(1)
    data = torch.randn(steps, 8, 16, generator=gen)
    target = torch.randint(0, 4, (steps, 8), generator=gen)
    for step in range(steps):
        print("loss", train_step(model, opt, data[step], target[step]).item().hex())
    for name, p in model.named_parameters():
        print("param", name, p.detach().sum().item().hex())
