import numpy as np, torch

def f(x, a, m, v):
    a %= 5
    m &= v
    a[m] *= 2
    b = a[1:]
    b += 100
    return x + 1, a.tolist(), m.tolist()

def main():
    torch.set_num_threads(1)
    for i in range(4):
        a = np.array([17, -9, 33]) + i
        m = np.array([True, True, i % 2 == 0])
        v = np.array([False, True, True])
        print(f(torch.ones(1), a, m, v)[1:], a.tolist(), m.tolist())
