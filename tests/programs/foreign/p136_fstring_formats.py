import torch


def report(x):
    m = x.mean()
    s = x.std()
    lines = [
        f"mean={m.item():.3f} std={s.item():8.4f}",
        f"shape={tuple(x.shape)} dtype={x.dtype} dev={x.device}",
        f"max={x.max().item():+.2e} argmax={x.argmax().item():>3d}",
        f"{x.numel():,} elems, {x.dim()}D, first={x.flatten()[0].item()!r}",
        "sum {:.2f} / {:d}".format(x.sum().item(), int(x.numel())),
        "%-6s|%5.1f|%x" % ("abc", m.item(), int(x.abs().sum().item())),
        repr(x.sum().round()),
        str(x.shape),
        f"{x.size(0)=}",
    ]
    return lines


def main():
    torch.manual_seed(4)
    for x in (torch.randn(4), torch.randn(2, 3) * 100, torch.arange(6.0).reshape(3, 2)):
        for line in report(x):
            print(line)
