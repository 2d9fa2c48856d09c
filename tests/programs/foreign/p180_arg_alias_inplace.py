import torch


def blend(a, b, alpha):
    a.mul_(1 - alpha)
    a.add_(b * alpha)
    return a.sum().item(), b.sum().item()


def swap_halves(x, y):
    tmp = x[: x.shape[0] // 2].clone()
    x[: x.shape[0] // 2] = y[: y.shape[0] // 2]
    y[: y.shape[0] // 2] = tmp
    return x.tolist(), y.tolist()


def main():
    torch.set_num_threads(1)
    t = torch.ones(3)
    print(blend(t, t, 0.5), t.tolist())
    u = torch.arange(3.0)
    print(blend(t, u, 0.25), t.tolist())
    print(blend(u[:2], u[1:], 0.5), u.tolist())
    v = torch.arange(4.0)
    print(swap_halves(v, v.flip(0)))
    print(swap_halves(v, v))
    w = torch.arange(6.0)
    print(swap_halves(w[:4], w[2:]), w.tolist())
