import torch


def clean(x, lo, hi):
    bad = (x < lo) | (x > hi) | torch.isnan(x)
    n_bad = int(bad.sum())
    y = x.masked_fill(bad, 0.0)
    kept = x[~bad]
    if kept.numel() == 0:
        return n_bad, y.tolist(), None
    cap = torch.where(kept > kept.mean(), kept.mean(), kept)
    return n_bad, y.tolist(), [round(v, 4) for v in cap.tolist()]


def row_filter(m, thr):
    keep = m.abs().sum(dim=1) > thr
    rows = m[keep]
    cols = rows[:, rows.sum(0) >= 0] if rows.shape[0] else rows
    return keep.tolist(), tuple(rows.shape), tuple(cols.shape)


def main():
    torch.set_num_threads(1)
    x = torch.tensor([1.0, float("nan"), -3.0, 4.0, 2.5, 9.0])
    for lo, hi in ((0, 5), (-5, 10), (20, 30), (2, 3)):
        print(clean(x, lo, hi))
    torch.manual_seed(5)
    m = torch.randn(5, 4)
    for thr in (0.0, 2.5, 3.5, 100.0):
        print(row_filter(m, thr))
