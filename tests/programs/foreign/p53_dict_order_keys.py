import torch

def tally(x, d):
    d[True] = d.get(1, 0) + 1
    d[0.0] = d.get(False, 0) + x.sum().item()
    d[-0.0] = d[0.0] * 2
    keys = list(d)
    d.pop(keys[0])
    d["z"] = len(d)
    return [(type(k).__name__, k) for k in d], list(d.values())

def main():
    torch.set_num_threads(1)
    for i in range(4):
        d = {1: 5} if i % 2 else {"a": 1, False: 3}
        if i == 3:
            d[float("nan")] = 1
        ks, vs = tally(torch.ones(2) * i, d)
        print(i, ks, vs)
