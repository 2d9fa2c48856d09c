import torch

def f(x):
    s = x.shape
    return (s == (2, 3), x.size() == [2, 3], list(s) == [2, 3], type(s + (1,)).__name__, s[-1], max(s), sum(s),
            s.numel(), bool(s), len(x), x.dim() == len(s), tuple(reversed(s)), s.index(s[0]), s.count(1), str(s), s[1:])

def main():
    torch.set_num_threads(1)
    for shape in ((2, 3), (3, 1), (2, 3), (1, 1, 4)):
        print(f(torch.zeros(shape)))
