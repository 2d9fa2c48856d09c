import torch

def f(w, x):
    y = w * x
    z = y.sum()
    return (type(z.grad_fn).__name__ if z.grad_fn is not None else None, y.is_leaf, z.requires_grad,
            w.is_leaf, y.grad_fn.name() if y.grad_fn else "-", z.item())

def main():
    torch.set_num_threads(1)
    w = torch.ones(2, requires_grad=True)
    for i in range(4):
        x = torch.full((2,), float(i))
        if i == 2:
            w = torch.ones(2)
        if i == 3:
            x.requires_grad_(True)
        print(i, f(w, x))
