import math

import torch


def safe_step(w, x, lr):
    loss = (x @ w).pow(2).mean().log()
    val = loss.item()
    if math.isnan(val) or math.isinf(val):
        return "skip", val, w
    if not torch.isfinite(w).all():
        return "bad-w", None, w
    g = 2 * x.T @ (x @ w) / (x.shape[0] * (x @ w).pow(2).mean())
    return "ok", round(val, 4), w - lr * g


def main():
    torch.set_num_threads(1)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
    for w in (torch.tensor([0.5, 0.5]), torch.zeros(2), torch.tensor([float("inf"), 1.0]),
              torch.tensor([1.0, float("nan")])):
        status, val, new_w = safe_step(w, x, 0.1)
        print(status, val, [round(v, 4) if not math.isnan(v) else "nan" for v in new_w.tolist()])
    print(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf")]), posinf=9.0).tolist())
