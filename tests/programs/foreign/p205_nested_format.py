import torch


def table(rows, width, prec):
    lines = []
    header = " | ".join(f"{name:>{width}}" for name in ("min", "max", "mean"))
    lines.append(header)
    for name, t in rows.items():
        vals = (t.min().item(), t.max().item(), t.mean().item())
        lines.append(f"{name:<4}" + " | ".join(f"{v:>{width}.{prec}f}" for v in vals))
    lines.append("{:=^{w}}".format(" end ", w=width * 3))
    return "\n".join(lines)


def main():
    torch.manual_seed(35)
    rows = {"a": torch.randn(5), "b": torch.rand(3) * 100, "c": torch.tensor([-1e-3, 1e3])}
    print(table(rows, 9, 3))
    print(table({"z": torch.zeros(2)}, 6, 1))
