import torch

def fit(w, x, y, lr):
    w = w.detach().requires_grad_(True)
    for _ in range(3):
        loss = ((x @ w - y) ** 2).mean()
        (g,) = torch.autograd.grad(loss, w)
        w = (w - lr * g).detach().requires_grad_(True)
    return w.detach(), loss.item()

def main():
    global l, lr, v, w, x, y
    torch.manual_seed(13)
    x, y = torch.randn(6, 2), torch.randn(6)
    w = torch.zeros(2)
    for lr in (0.1, 0.2, 0.1):
        w, l = fit(w, x, y, lr)
        print([round(v, 6) for v in w.tolist()], round(l, 6))
