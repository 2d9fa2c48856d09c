import torch

def rank_rows(m):
    rows = [(float(r.sum()), i, r) for i, r in enumerate(m)]
    rows.sort(key=lambda t: (-t[0], t[1]))
    order = [i for _, i, _ in rows]
    best = max(rows, key=lambda t: t[2].max().item())
    return order, best[1], torch.stack([r for *_, r in rows])

def main():
    global best, k, m, order, sorted_m
    torch.manual_seed(7)
    for k in range(3):
        m = torch.randn(4, 3).round(decimals=1)
        order, best, sorted_m = rank_rows(m)
        print(order, best, sorted_m.sum(1).tolist())
