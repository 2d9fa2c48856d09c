import torch

def make(v, n):
    a = torch.full((2,), v)
    b = torch.tensor([v, n])
    c = torch.zeros(2) + v
    d = torch.arange(n) * v
    return a.dtype, a.tolist(), b.dtype, b.tolist(), c.dtype, d.dtype, d.tolist()

def main():
    torch.set_num_threads(1)
    for v, n in ((2, 3), (2.5, 3), (True, 2), (7, 4), (-1.0, 2)):
        print(make(v, n))
