import torch

def tree_sum(t, depth):
    if depth == 0 or t.numel() <= 1:
        return t.sum(), 1
    h = t.numel() // 2
    a, na = tree_sum(t[:h], depth - 1)
    b, nb = tree_sum(t[h:], depth - 1)
    return a + b, na + nb + 1

def main():
    torch.set_num_threads(1)
    for n, d in ((8, 3), (5, 2), (8, 1), (3, 5)):
        s, k = tree_sum(torch.arange(float(n)), d)
        print(n, d, s.item(), k)
