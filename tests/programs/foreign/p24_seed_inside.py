import torch

def sample(n, seed=None):
    if seed is not None:
        torch.manual_seed(seed)
    a = torch.rand(n)
    g = torch.Generator().manual_seed(42)
    b = torch.randint(0, 10, (n,), generator=g)
    return a.sum().item(), b.tolist(), torch.initial_seed()

def main():
    global s
    torch.manual_seed(0)
    for s in (None, 1, None, 1):
        print(sample(3, s))
    print(torch.rand(2).tolist())
