import torch
from torch import nn


def manual_step(model, velocities, lr, mu):
    norms = []
    with torch.no_grad():
        for (name, p), v in zip(model.named_parameters(), velocities):
            if p.grad is None:
                norms.append((name, None))
                continue
            v.mul_(mu).add_(p.grad)
            p.sub_(lr * v)
            norms.append((name, round(v.norm().item(), 4)))
    return norms


def run(model, x, y, steps):
    vel = [torch.zeros_like(p) for p in model.parameters()]
    for step in range(steps):
        model.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        norms = manual_step(model, vel, 0.05, 0.9)
        print(step, round(loss.item(), 4), norms)


def main():
    torch.manual_seed(9)
    model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    model[0].bias.requires_grad_(False)
    x, y = torch.randn(6, 3), torch.randn(6, 1)
    run(model, x, y, 3)
    sizes = [(n, tuple(p.shape), p.requires_grad) for n, p in model.named_parameters()]
    print(sizes)
