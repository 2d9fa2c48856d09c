import torch


def probe(t):
    res = {}
    res["contains"] = 3 in t
    res["int"] = int(t.max())
    res["round"] = round(t.float().mean().item(), 2)
    res["abs"] = abs(t).tolist()
    res["neg_floor"] = (-t // 2).tolist()
    res["pow"] = (2 ** t).tolist()
    res["fmt"] = f"{t.sum():.2f}" if t.is_floating_point() else format(int(t.sum()), "05d")
    try:
        res["bool"] = bool(t)
    except RuntimeError as e:
        res["bool"] = str(e)[:45]
    try:
        res["len0"] = len(t.sum())
    except TypeError as e:
        res["len0"] = str(e)
    res["iter"] = [int(v) for v in t[:2]]
    return res


def main():
    torch.set_num_threads(1)
    for t in (torch.tensor([1, 3, 5]), torch.tensor([2.5]), torch.tensor([0.0, -1.5])):
        for k, v in probe(t).items():
            print(k, v)
