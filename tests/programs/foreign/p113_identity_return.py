import torch

KEEP = []

def f(x, flag):
    y = x
    y += 1
    z = y * 2
    KEEP.append(z)
    if flag:
        return y, z, z
    return x, y, z

def main():
    torch.set_num_threads(1)
    x = torch.zeros(2)
    for i in range(4):
        a, b, c = f(x, i % 2 == 0)
        print(i, a is x, b is x, b is c, c is KEEP[-1], KEEP[-1] is KEEP[0], x.tolist())
