import torch
from torch import nn


def census(model):
    kinds = {}
    for name, mod in model.named_modules():
        kinds.setdefault(type(mod).__name__, []).append(name or "<root>")
    n_params = sum(p.numel() for p in model.parameters())
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    return kinds, n_params, n_train, len(linears), [type(c).__name__ for c in model.children()]


def freeze_first(model):
    for mod in model.modules():
        if isinstance(mod, nn.Linear):
            for p in mod.parameters():
                p.requires_grad_(False)
            return mod.out_features


def init_all(model):
    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.1)
            nn.init.zeros_(m.bias)
    model.apply(init)
    return model(torch.ones(1, 3)).sum().item()


def main():
    torch.manual_seed(28)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2), nn.Tanh()), nn.Linear(2, 1))
    print(census(model))
    print(freeze_first(model), census(model)[1:3])
    print(round(init_all(model), 6))
