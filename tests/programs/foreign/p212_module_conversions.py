import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 1)
        self.register_buffer("offset", torch.tensor([0.5]))

    def forward(self, x):
        h = torch.relu(self.a(x.to(self.a.weight.dtype)))
        return self.b(h) + self.offset


def step(net, x):
    out = net(x)
    loss = out.pow(2).mean()
    if loss.requires_grad:
        loss.backward()
    grads = [p.grad is not None for p in net.parameters()]
    return out.dtype, round(loss.item(), 3), grads, loss.requires_grad


def main():
    torch.manual_seed(39)
    net = Net()
    x = torch.randn(2, 3)
    for i in range(6):
        if i == 1:
            net.double()
        if i == 2:
            net.b.requires_grad_(False)
        if i == 3:
            net.float()
            net.zero_grad(set_to_none=True)
        if i == 4:
            net.requires_grad_(False)
        if i == 5:
            net.to(torch.bfloat16)
        print(i, step(net, x), net.offset.dtype)
