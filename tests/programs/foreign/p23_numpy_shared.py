import torch, numpy as np

def bump(t):
    a = t.numpy()
    a += 1
    b = t * 2
    a[0] = -5
    return b, t.sum().item(), a.dtype.name

def main():
    global b, dt, i, s, t
    t = torch.zeros(4)
    for i in range(3):
        b, s, dt = bump(t)
        print(i, b.tolist(), s, dt, t.tolist())
