import torch

def update(a, b, out=None):
    a.add_(1)
    c = a.view(-1)
    c[0] = 100.0
    if out is None:
        out = []
    out.append(a is b)
    return a, a, c, out

def main():
    global res, x, y
    x = torch.zeros(2, 2)
    res = update(x, x)
    print(res[0] is res[1], res[0] is x, res[2]._base is x, res[3], x.tolist())
    y = torch.ones(2, 2)
    res = update(y, x)
    print(res[0] is res[1], res[0] is y, res[3], y.tolist())
    res = update(torch.ones(3, 1), x, out=["keep"])
    print(res[3], res[2].tolist())
