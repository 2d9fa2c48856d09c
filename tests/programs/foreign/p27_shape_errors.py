import torch

def combine(a, b):
    try:
        return a @ b, "matmul"
    except RuntimeError as e:
        msg = str(e).split("\n")[0]
        return (a * b.sum()), "fallback: " + msg[:40]

def main():
    global how, r, sa, sb
    torch.manual_seed(14)
    for sa, sb in [((2, 3), (3, 2)), ((2, 3), (2, 3)), ((4,), (4,)), ((2, 2), (3, 1))]:
        r, how = combine(torch.ones(sa), torch.ones(sb))
        print(sa, sb, tuple(r.shape), how)
