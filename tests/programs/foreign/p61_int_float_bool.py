import math, torch

def f(x, n, flag):
    y = x * n
    kinds = (type(n).__name__, isinstance(n, bool), n is True, n == 1, hash(n) == hash(1))
    half = n / 2
    fl = n // 2
    neg = -0.0 * n
    return y, kinds, (type(half).__name__, half), (type(fl).__name__, fl), math.copysign(1, neg), str(flag and n), {1: "one"}.get(n, "?")

def main():
    torch.set_num_threads(1)
    for n, flag in ((True, 1), (1, True), (3, 0), (2.5, False), (5, None)):
        print(f(torch.ones(2), n, flag)[1:])
