import torch, torch.nn as nn

class RunningNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("mean", torch.zeros(d))
        self.register_buffer("count", torch.tensor(0))
        self.momentum = 0.1
        self.frozen = False

    def forward(self, x):
        if self.training and not self.frozen:
            self.count += 1
            self.mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0))
        return x - self.mean

def main():
    global i, m, v, y
    torch.manual_seed(3)
    m = RunningNorm(4)
    for i in range(5):
        if i == 3:
            m.frozen = True
        if i == 4:
            m.eval()
        y = m(torch.randn(8, 4))
        print(i, round(y.sum().item(), 5), m.count.item(), [round(v, 5) for v in m.mean.tolist()])
