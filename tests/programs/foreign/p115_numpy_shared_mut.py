import numpy as np, torch

def f(x):
    a = x.numpy()
    a[0] = 99
    b = torch.as_tensor(a)
    b[1] = -1
    c = torch.tensor(a)
    c[2] = 7
    return x.tolist(), a.tolist(), c.tolist(), np.shares_memory(a, b.numpy())

def main():
    torch.set_num_threads(1)
    for i in range(4):
        print(f(torch.arange(3.0) + i))
