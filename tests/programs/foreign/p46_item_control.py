import torch

def clip(x, limit):
    total = x.sum().item()
    vals = x.tolist()
    if total > limit:
        x = x / total * limit
    n_pos = sum(1 for v in vals if v > 0)
    if n_pos == len(vals):
        tag = "allpos"
    elif n_pos == 0:
        tag = "allneg"
    else:
        tag = f"mixed{n_pos}"
    return x, tag, int(x.argmax()), bool(x.any())

def main():
    torch.set_num_threads(1)
    for x, lim in ((torch.tensor([1.0, 2.0]), 10), (torch.tensor([5.0, 7.0]), 3), (torch.tensor([-1.0, -2.0]), 1), (torch.tensor([-1.0, 4.0, 0.0]), 2.5)):
        y, t, a, b = clip(x, lim)
        print([round(v, 5) for v in y.tolist()], t, a, b)
