import torch

def select(x, thr):
    m = x > thr
    vals = x[m]
    idx = m.nonzero().flatten().tolist()
    w = torch.where(m, x, torch.zeros_like(x))
    return vals.tolist(), idx, w.sum().item(), int(m.sum())

def main():
    torch.set_num_threads(1)
    x = torch.tensor([0.5, -1.0, 3.0, 2.0])
    for thr in (0.0, 1.0, 10.0, -5):
        print(thr, select(x, thr))
