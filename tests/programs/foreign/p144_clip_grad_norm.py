import math

import torch
from torch import nn


def train_step(model, opt, x, y, max_norm):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    clipped = total.item() > max_norm
    after = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
    opt.step()
    return round(loss.item(), 4), round(total.item(), 4), clipped, round(after, 4)


def main():
    torch.manual_seed(11)
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randn(8, 2) * 10
    for max_norm in (1.0, 100.0, 0.5, float("inf")):
        print(train_step(model, opt, x, y, max_norm))
    nn.utils.clip_grad_value_(model.parameters(), 0.01)
    print([round(g, 4) for g in model.bias.grad.tolist()])
