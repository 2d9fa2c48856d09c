import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.act = nn.ReLU()
        self.use_act = True
        self.scale = 1.0
    def forward(self, x):
        y = self.lin(x) * self.scale
        if self.use_act:
            y = self.act(y)
        return y

def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = Net()
    x = torch.tensor([[1.0, -2.0]])
    for i in range(5):
        if i == 1:
            net.use_act = False
        if i == 2:
            net.scale = 3
        if i == 3:
            net.act = nn.Tanh()
            net.use_act = True
        if i == 4:
            with torch.no_grad():
                net.lin.weight.fill_(0.5)
        print(i, [round(v, 5) for v in net(x).flatten().tolist()])
