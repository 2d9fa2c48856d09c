import numpy as np
import torch


def bump(t, k):
    a = t.numpy()
    a[0] += k
    a *= 2
    b = torch.from_numpy(a)
    b[1] = -1
    return t.tolist(), a.tolist(), b.sum().item(), np.shares_memory(a, t.numpy())


def stats(arr):
    t = torch.as_tensor(arr)
    t.mul_(3)
    m = float(arr.mean())
    return t.dtype, arr.tolist(), round(m, 4)


def main():
    torch.set_num_threads(1)
    t = torch.zeros(3)
    for k in (1, 2):
        print(bump(t, k))
    print(t.tolist())
    print(stats(np.arange(4, dtype=np.float32)))
    print(stats(np.arange(3)))
