import torch

def take(it, x, n):
    out = []
    for _ in range(n):
        v = next(it, None)
        if v is None:
            out.append("end")
            break
        out.append((x * v).sum().item())
    return out

def main():
    torch.set_num_threads(1)
    it = iter([1, 2, 3, 4, 5])
    g = (k * k for k in range(4))
    for i in range(4):
        print(i, take(it, torch.ones(2), 2), take(g, torch.ones(1), 1 + i % 2))
    print(list(it), list(g))
