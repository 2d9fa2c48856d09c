import torch

def fmt(x, spec):
    s1 = "{0.shape[0]}x{0.ndim} {0.dtype}".format(x)
    s2 = "{:{}}".format(x.sum().item(), spec)
    s3 = "{n:>5}|{d!s}".format(n=x.numel(), d=x.device)
    s4 = f"{x.mean().item():{spec}}"
    return s1, s2, s3, s4

def main():
    torch.set_num_threads(1)
    for x, spec in ((torch.ones(2, 3), ".2f"), (torch.arange(5.0), "e"), (torch.ones(1, dtype=torch.float64), "08.3f"), (torch.full((4,), 2.5), "+.1%")):
        print(fmt(x, spec))
