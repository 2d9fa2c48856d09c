import torch

def fwd(w, x):
    y = (w * x).sum()
    if w.requires_grad:
        g, = torch.autograd.grad(y, w)
        return y.detach(), g, torch.is_grad_enabled()
    return y, None, torch.is_grad_enabled()

def main():
    torch.set_num_threads(1)
    w = torch.ones(3)
    x = torch.arange(3.0)
    for i in range(5):
        if i == 1:
            w.requires_grad_(True)
        if i == 3:
            w = w.detach()
        if i == 4:
            with torch.no_grad():
                r = fwd(w.requires_grad_(), x)
        else:
            r = fwd(w, x)
        print(i, r[0].item(), None if r[1] is None else r[1].tolist(), r[2], w.requires_grad)
