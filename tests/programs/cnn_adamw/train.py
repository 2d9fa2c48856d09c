"""A small CNN trained with AdamW, OneCycleLR and clip_grad_norm_ (the training package)."""
from __future__ import annotations

import hashlib

import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


def train_step(model, opt, sched, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    return loss


def main(steps: int = 8) -> None:
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=steps + 1)
    gen = torch.Generator().manual_seed(1)
    data = torch.randn(steps, 8, 1, 8, 8, generator=gen)
    target = torch.randint(0, 10, (steps, 8), generator=gen)
    for step in range(steps):
        loss = train_step(model, opt, sched, data[step], target[step])
        print("loss", loss.item().hex(), "lr", float(sched.get_last_lr()[0]).hex())
    for name, p in model.named_parameters():
        print("param", name, hashlib.sha256(p.detach().numpy().tobytes()).hexdigest()[:16])
