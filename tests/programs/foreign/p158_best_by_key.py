import torch


def best(candidates, x):
    scored = {name: fn(x) for name, fn in candidates.items()}
    winner = min(scored, key=lambda k: scored[k].abs().sum().item())
    worst = max(scored.items(), key=lambda kv: float(kv[1].abs().max()))[0]
    ranked = sorted(scored, key=lambda k: (round(scored[k].mean().item(), 2), k))
    return winner, worst, ranked


def main():
    torch.set_num_threads(1)
    cands = {
        "relu": torch.relu,
        "tanh": torch.tanh,
        "sq": lambda t: t * t,
        "neg": torch.neg,
    }
    for x in (torch.tensor([-2.0, 0.5, 1.0]), torch.tensor([0.1, -0.1]), torch.tensor([3.0])):
        print(best(cands, x))
