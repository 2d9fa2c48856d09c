import io

import torch
from torch import nn


def checkpoint(model, opt, step):
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, buf)
    return buf.getvalue()


def restore(blob, model, opt):
    ck = torch.load(io.BytesIO(blob), weights_only=True)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    return ck["step"]


def train(model, opt, n):
    x = torch.linspace(0, 1, 6).reshape(3, 2)
    for _ in range(n):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return round(loss.item(), 6)


def main():
    torch.manual_seed(34)
    model = nn.Linear(2, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    print(train(model, opt, 2))
    blob = checkpoint(model, opt, 2)
    a = train(model, opt, 3)
    print(a, restore(blob, model, opt))
    b = train(model, opt, 3)
    print(b, a == b)
