import torch

def make():
    calls = 0
    seen = []
    def f(x, idx):
        nonlocal calls
        calls += 1
        seen.append(idx.tolist())
        f.tries = getattr(f, "tries", 0) + 1
        return x[idx] * 2
    def stats():
        return calls, f.tries, list(seen)
    return f, stats

def main():
    torch.set_num_threads(1)
    f, stats = make()
    x = torch.arange(3.0)
    for idx in (torch.tensor([0]), torch.tensor([5]), torch.tensor([2]), torch.tensor([3])):
        try:
            r = f(x, idx).tolist()
        except IndexError:
            r = "IndexError"
        print(r, stats())
