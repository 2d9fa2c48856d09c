import torch


def pieces(x, n):
    out = []
    for i, c in enumerate(x.chunk(n)):
        out.append((i, tuple(c.shape), round(c.sum().item(), 3)))
    rows = x.unbind(0)
    firsts = [r[0].item() for r in rows]
    a, *rest = x.split(2)
    return out, firsts, tuple(a.shape), len(rest)


def main():
    torch.manual_seed(17)
    for n, chunks in ((5, 2), (6, 4), (1, 3), (7, 3)):
        x = torch.arange(n * 2.0).reshape(n, 2)
        print(pieces(x, chunks))
