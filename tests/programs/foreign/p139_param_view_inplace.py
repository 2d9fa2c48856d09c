import torch
from torch import nn


def constrain(model, max_norm):
    changed = []
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() < 2:
                p.clamp_(-0.1, 0.1)
                continue
            for i, row in enumerate(p):
                n = row.norm()
                if n > max_norm:
                    row.mul_(max_norm / n)
                    changed.append(f"{name}[{i}]")
            p[:, 0] = 0.0
    return changed


def main():
    torch.manual_seed(6)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    for max_norm in (0.8, 0.5, 0.5):
        changed = constrain(model, max_norm)
        w = model[0].weight
        print(changed, round(w.norm().item(), 4), w.requires_grad, w.is_leaf, w.grad_fn)
        print([round(v, 4) for v in model[2].bias.tolist()])
    out = model(torch.ones(1, 3))
    print([round(v, 4) for v in out.flatten().tolist()], out.grad_fn is not None)
