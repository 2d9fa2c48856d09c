import torch


def ranks(scores, names):
    vals, idx = torch.sort(scores, descending=True, stable=True)
    order = [names[i] for i in idx.tolist()]
    argsorted = scores.argsort().tolist()
    ties = len(vals) - len(torch.unique(vals))
    by_py = sorted(zip(scores.tolist(), names), key=lambda p: -p[0])
    return order, argsorted[:2], ties, [n for _, n in by_py]


def main():
    torch.set_num_threads(1)
    names = ["ann", "bob", "cy", "dee", "eve"]
    for s in ([3.0, 1.0, 3.0, 2.0, 1.0], [0.5, 0.5, 0.5, 0.5, 0.5], [5.0, 4.0, 3.0, 2.0, 1.0]):
        print(ranks(torch.tensor(s), names))
