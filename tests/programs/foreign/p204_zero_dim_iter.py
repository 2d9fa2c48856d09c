import torch


def unpack(t):
    try:
        first, *rest = t
        return "rows", first.tolist(), len(rest)
    except TypeError as e:
        return "TypeError", str(e), 0
    except ValueError as e:
        return "ValueError", str(e), 0


def chained(t):
    v = t.mean().item()
    return 0 < v < 1, -1 <= v <= 1 < len(t.shape) + 1, v if 0.2 < v else None


def main():
    torch.set_num_threads(1)
    for t in (torch.arange(6.0).reshape(3, 2), torch.tensor(2.0), torch.zeros(0), torch.tensor([0.5])):
        print(unpack(t))
    for t in (torch.tensor([0.5, 0.25]), torch.tensor([2.0]), torch.tensor([[0.1, 0.2]])):
        print(chained(t))
