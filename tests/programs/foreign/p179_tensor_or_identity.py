import torch


def choose(a, b, default):
    first = a if a.numel() else b
    second = a.numel() and a
    third = default or a
    fourth = None if b.numel() == 0 else b
    return first is a, second is a, third is default, fourth is b


def fallback(x, cache):
    cached = cache.get("x")
    result = cached if cached is not None else x * 2
    cache.setdefault("x", result)
    return result is cache["x"], result.tolist()


def main():
    torch.set_num_threads(1)
    a, b = torch.ones(2), torch.zeros(3)
    print(choose(a, b, [1]))
    print(choose(torch.empty(0), b, []))
    print(choose(a, torch.empty(0), [0]))
    cache = {}
    for x in (torch.ones(1), torch.full((1,), 5.0)):
        print(fallback(x, cache))
