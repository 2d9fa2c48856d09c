import torch

def log_metrics(metrics, step):
    lines = []
    for k, v in sorted(metrics.items()):
        if isinstance(v, torch.Tensor):
            v = v.item() if v.numel() == 1 else v.tolist()
        lines.append(f"{step:03d} {k:>6}: {v!r}")
    return "\n".join(lines)

def main():
    global m, s
    torch.manual_seed(19)
    for s in range(3):
        m = {"loss": torch.rand(()), "acc": 0.5 + s / 10, "vec": torch.arange(s + 1)}
        print(log_metrics(m, s))
