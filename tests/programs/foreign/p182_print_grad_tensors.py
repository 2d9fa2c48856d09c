import torch


def show(x, w):
    y = x * w
    print(y)
    z = y.sum()
    print("z:", z)
    print(repr(w))
    d = y.detach()
    print(d, d.requires_grad)
    with torch.no_grad():
        print(x * w)
    return z


def main():
    torch.set_printoptions(precision=3)
    w = torch.nn.Parameter(torch.tensor([0.5, -1.25]))
    for x in (torch.ones(2), torch.tensor([2.0, 3.0])):
        z = show(x, w)
        z.backward()
    print(w.grad)
    torch.set_printoptions(profile="default")
