import torch

def running_mean():
    total, n = torch.zeros(2), 0
    value = yield None
    while True:
        total = total + value
        n += 1
        value = yield total / n

def drive(values):
    g = running_mean()
    next(g)
    outs = [g.send(v).tolist() for v in values]
    g.close()
    return outs

def main():
    global _, k
    torch.manual_seed(16)
    for k in (1, 3):
        print(drive([torch.randn(2).round(decimals=2) for _ in range(k)]))
