import torch

def make_fns(n):
    fns = []
    for k in range(n):
        fns.append(lambda t, k=k: t * k)
    late = [lambda t: t + k for k in range(n)]
    return fns, late

def run(x, n):
    fns, late = make_fns(n)
    a = sum((f(x) for f in fns), torch.zeros_like(x))
    b = [g(x).sum().item() for g in late]
    return a, b

def main():
    torch.set_num_threads(1)
    for n in (1, 3, 2, 4):
        a, b = run(torch.arange(3.0), n)
        print(n, a.tolist(), b)
