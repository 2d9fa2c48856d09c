import torch, torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2))
        self.calls = 0
    def forward(self, x):
        self.calls += 1
        h = self.body(x)
        return h.log_softmax(-1), {"calls": self.calls, "train": self.training}

def main():
    global info, loss, net, opt, out, p, step, x, y
    torch.manual_seed(18)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for step in range(6):
        if step == 4:
            net.eval()
        x, y = torch.randn(5, 4), torch.randint(0, 2, (5,))
        out, info = net(x)
        loss = nn.functional.nll_loss(out, y)
        if net.training:
            opt.zero_grad(); loss.backward(); opt.step()
        print(step, round(loss.item(), 6), info)
    print([round(p.sum().item(), 6) for p in net.parameters()])
