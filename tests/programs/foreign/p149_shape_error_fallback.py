import torch


def combine(a, b):
    try:
        return a + b, "add"
    except RuntimeError as e:
        msg = str(e).split("\n")[0]
    try:
        return a @ b, "matmul"
    except RuntimeError:
        pass
    try:
        return torch.cat([a.flatten(), b.flatten()]), "cat:" + msg[:40]
    finally:
        TRIES.append((tuple(a.shape), tuple(b.shape)))


TRIES = []


def main():
    torch.set_num_threads(1)
    pairs = [
        (torch.ones(2, 3), torch.ones(2, 3)),
        (torch.ones(2, 3), torch.ones(3, 4)),
        (torch.ones(2, 3), torch.ones(5)),
        (torch.ones(3), torch.ones(3, 1)),
    ]
    for a, b in pairs:
        out, how = combine(a, b)
        print(how, tuple(out.shape), out.sum().item())
    print(TRIES)
