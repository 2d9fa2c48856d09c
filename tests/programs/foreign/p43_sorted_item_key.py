import torch

def rank(rows):
    order = sorted(range(len(rows)), key=lambda i: (rows[i].sum().item(), -i))
    best = max(rows, key=lambda r: r.abs().max().item())
    return [int(i) for i in order], best, min(r.mean().item() for r in rows)

def main():
    torch.set_num_threads(1)
    torch.manual_seed(3)
    rows = [torch.randn(3) for _ in range(4)]
    for i in range(4):
        if i == 2:
            rows.append(torch.full((3,), 10.0))
        if i == 3:
            rows[0].mul_(-100)
        o, b, m = rank(rows)
        print(i, o, [round(v, 4) for v in b.tolist()], round(m, 4))
