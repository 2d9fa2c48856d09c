import torch


def summarize(named):
    means = {name: round(t.mean().item(), 3) for name, t in named.items()}
    big = [name for name, t in named.items() if t.abs().max() > 1]
    flat = [round(v, 2) for t in named.values() for v in t.flatten().tolist()[:2]]
    total = sum(t.sum().item() for t in named.values())
    shapes = {tuple(t.shape) for t in named.values()}
    return means, big, flat, round(total, 3), sorted(shapes)


def main():
    torch.manual_seed(29)
    named = {"a": torch.randn(2, 2), "b": torch.randn(3) * 0.1, "c": torch.ones(1, 2) * 2}
    print(summarize(named))
    named["b"].mul_(100)
    print(summarize(named))
    del named["a"]
    print(summarize(named))
