import torch

def f(x, n):
    y = x * n
    return y, type(n) is int, type(n).__name__, {int: 2.0}.get(type(n), 1.0), repr(type(n)(4)), isinstance(n // 2, int), type(x.shape[0]).__name__, str(x.shape[0] + n)

def main():
    torch.set_num_threads(1)
    for n in (3, 5, 7, 9):
        print(f(torch.ones(n % 4 + 1), n)[1:])
