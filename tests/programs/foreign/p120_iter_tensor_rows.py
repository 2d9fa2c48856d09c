import torch

def f(x):
    out = []
    for row in x:
        out.append(row.sum().item() if row.dim() else row.item())
    try:
        n = len(x)
    except TypeError as e:
        n = str(e)
    return out, n, [tuple(r.shape) for r in x.unbind(0)] if x.dim() else None

def main():
    torch.set_num_threads(1)
    for x in (torch.arange(6.0).view(2, 3), torch.arange(4.0), torch.arange(6.0).view(3, 2), torch.ones(1, 1)):
        print(f(x))
    try:
        print(f(torch.tensor(3.0)))
    except TypeError as e:
        print("TypeError", e)
