import inspect
import typing

import torch


def configure(x: torch.Tensor, *, lr: float = 0.1, wd: float = 0.0, **extra: typing.Any) -> dict:
    out = {"lr": lr, "wd": wd}
    out.update(extra)
    keys = list(extra)
    return {k: (v(x).item() if callable(v) else v) for k, v in out.items()}, keys


def describe(fn):
    sig = inspect.signature(fn)
    return [(n, p.kind.name, p.default if p.default is not p.empty else None) for n, p in sig.parameters.items()], \
        sorted(fn.__annotations__)


def main():
    torch.set_num_threads(1)
    x = torch.tensor([1.0, 3.0])
    print(configure(x, momentum=0.9, wd=0.01, nesterov=True, mean=torch.mean))
    print(configure(x, zeta=1, alpha=2, lr=0.5))
    opts = {"b": torch.sum, "a": 3}
    print(configure(x, **opts, lr=1e-3))
    print(describe(configure))
