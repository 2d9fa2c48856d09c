import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(torch.relu(self.lin(x)))


def noisy(x):
    perm = torch.randperm(x.shape[0])
    mask = torch.bernoulli(torch.full_like(x, 0.3))
    picks = torch.multinomial(torch.ones(x.shape[0]), 2)
    return x[perm] * mask, picks


def main():
    torch.manual_seed(24)
    net = Net()
    x = torch.ones(2, 4)
    for i in range(3):
        if i == 2:
            net.eval()
        y = net(x)
        print(i, [round(v, 4) for v in y.flatten().tolist()], round(torch.rand(()).item(), 6))
    for _ in range(2):
        y, picks = noisy(torch.arange(8.0).reshape(4, 2))
        print(y.tolist(), picks.tolist())
    w = torch.empty(2, 3)
    nn.init.xavier_uniform_(w)
    print([round(v, 4) for v in w.flatten().tolist()])
