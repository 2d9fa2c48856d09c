import torch

def upd(a, b):
    a.add_(1)
    return (b * 2).tolist(), a is b

def main():
    torch.set_num_threads(1)
    x = torch.zeros(3)
    y = torch.zeros(3)
    for i in range(5):
        if i % 2 == 0:
            print(i, upd(x, x), x.tolist())
        else:
            print(i, upd(x, y), x.tolist(), y.tolist())
    z = torch.zeros(4)
    print(upd(z[1:], z[:3]), z.tolist())
    print(upd(z[1:], z[:3]), z.tolist())
