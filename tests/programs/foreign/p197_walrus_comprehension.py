import torch


def scan(xs, thr):
    total = torch.zeros(())
    kept = [y for x in xs if (y := x * 2).sum() > thr]
    running = [(total := total + x.sum()).item() for x in xs]
    if (n := len(kept)) > 1:
        msg = f"kept {n}, last y={y.tolist()}"
    else:
        msg = "few"
    return msg, running, round(total.item(), 3)


def main():
    torch.set_num_threads(1)
    xs = [torch.tensor([1.0, -2.0]), torch.tensor([3.0, 0.5]), torch.tensor([0.25, 0.25])]
    for thr in (0.0, 2.0, 100.0):
        print(scan(xs, thr))
