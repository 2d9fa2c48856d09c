import torch
from torch import nn


def split_decay(model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") or p.dim() == 1 else decay).append(p)
    return [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]


def train(model, steps):
    opt = torch.optim.AdamW(split_decay(model), lr=0.05)
    x = torch.linspace(-1, 1, 8).reshape(4, 2)
    y = x.sum(1, keepdim=True)
    for _ in range(steps):
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    groups = [(len(g["params"]), g["weight_decay"]) for g in opt.param_groups]
    return round(loss.item(), 5), groups, [round(v, 4) for v in model[0].weight.flatten().tolist()]


def main():
    torch.manual_seed(30)
    model = nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3), nn.Linear(3, 1))
    print(train(model, 3))
    print(train(model, 2))
