import torch, random

def sample(n, seed):
    torch.manual_seed(seed)
    random.seed(seed)
    a = torch.rand(n)
    b = random.random()
    g = torch.Generator().manual_seed(seed + 1)
    c = torch.randn(n, generator=g)
    d = torch.randint(0, 10, (n,))
    return a.tolist(), round(b, 6), c.tolist(), d.tolist(), torch.initial_seed()

def main():
    torch.set_num_threads(1)
    for s, n in ((1, 2), (2, 2), (1, 3), (7, 1)):
        print(sample(n, s))
    print(torch.rand(1).tolist())
