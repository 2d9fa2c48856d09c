import copy

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.bn = nn.BatchNorm1d(2)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        if self.training:
            self.steps += 1
        return self.bn(self.fc(x))


def snapshot(model):
    return {k: v.clone() for k, v in model.state_dict().items()}


def train_some(model, x, n):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(n):
        loss = model(x).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return round(loss.item(), 4)


def diff(a, b):
    return sorted(k for k in a if not torch.equal(a[k], b[k]))


def main():
    torch.manual_seed(7)
    x = torch.randn(4, 2)
    model = Net()
    before = snapshot(model)
    print(train_some(model, x, 3), int(model.steps))
    after = snapshot(model)
    print(diff(before, after))
    res = model.load_state_dict(before)
    print(res.missing_keys, res.unexpected_keys, int(model.steps))
    clone = copy.deepcopy(model)
    print(train_some(clone, x, 2), int(clone.steps), int(model.steps))
    partial = {k: v for k, v in after.items() if k.startswith("fc.")}
    res = model.load_state_dict(partial, strict=False)
    print(sorted(res.missing_keys), diff(snapshot(model), after))
    model.eval()
    print([round(v, 4) for v in model(x).flatten().tolist()], int(model.steps))
