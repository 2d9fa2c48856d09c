import torch
from torch import nn


class Heads(nn.Module):
    def __init__(self, names, dim):
        super().__init__()
        self.heads = nn.ModuleDict({n: nn.Linear(dim, 1) for n in names})
        self.scales = nn.ParameterList([nn.Parameter(torch.full((1,), float(i + 1))) for i in range(len(names))])

    def forward(self, x, which=None):
        out = {}
        for (name, head), scale in zip(self.heads.items(), self.scales):
            if which is not None and name not in which:
                continue
            out[name] = head(x) * scale
        return out


def summarize(model, x, which):
    out = model(x, which)
    return {k: round(v.sum().item(), 4) for k, v in out.items()}, len(model.heads), "b" in model.heads


def main():
    torch.manual_seed(10)
    model = Heads(["a", "b", "c"], 2)
    x = torch.randn(3, 2)
    print(summarize(model, x, None))
    print(summarize(model, x, {"c", "a"}))
    model.heads["d"] = nn.Linear(2, 1)
    model.scales.append(nn.Parameter(torch.tensor([-1.0])))
    print(summarize(model, x, None))
    del model.heads["b"]
    print(summarize(model, x, ["b", "d"]), sorted(n for n, _ in model.named_parameters())[:3])
