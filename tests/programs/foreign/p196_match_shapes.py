import torch


def describe(x):
    match tuple(x.shape):
        case ():
            kind = f"scalar {x.item():.2f}"
        case (n,):
            kind = f"vector of {n}"
        case (1, n) | (n, 1):
            kind = f"thin {n}"
        case (b, c, *rest) if rest:
            kind = f"batched {b}x{c} +{len(rest)}"
        case _:
            kind = "matrix"
    return kind, round(x.float().sum().item(), 3)


def route(cfg, x):
    match cfg:
        case {"op": "scale", "by": float(k) | int(k)}:
            return x * k
        case {"op": "clip", "lo": lo, "hi": hi}:
            return x.clamp(lo, hi)
        case [first, *others]:
            return route(first, x) + len(others)
        case _:
            return x


def main():
    torch.set_num_threads(1)
    for x in (torch.tensor(3.5), torch.ones(4), torch.ones(1, 3), torch.ones(5, 1), torch.ones(2, 3, 4), torch.ones(2, 2)):
        print(describe(x))
    x = torch.tensor([-2.0, 0.5, 3.0])
    for cfg in ({"op": "scale", "by": 2}, {"op": "clip", "lo": -1, "hi": 1}, [{"op": "scale", "by": 0.5}, 1, 2], "noop"):
        print(route(cfg, x).tolist())
