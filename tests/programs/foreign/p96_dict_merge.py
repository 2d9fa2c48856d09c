import torch

def merge(x, a, b):
    c = {**a, **b}
    d = dict(a)
    d |= b
    d.setdefault("x", x.sum().item())
    e = a | {"new": 1}
    a.setdefault("hits", 0)
    a["hits"] += 1
    return list(c.items()), list(d.items()), list(e), a

def main():
    torch.set_num_threads(1)
    a = {"p": 1, "q": 2}
    for i, b in enumerate(({"q": 9}, {}, {"x": 0, "p": 5}, {"hits": 100})):
        print(i, merge(torch.ones(2) * i, a, b))
