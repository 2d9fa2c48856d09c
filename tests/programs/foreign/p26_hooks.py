import torch

grads = []

def forward(x):
    y = x * x
    y.register_hook(lambda g: grads.append(g.sum().item()) or g * 2)
    return y.sum()

def main():
    global i, out, x
    for i in range(3):
        x = torch.full((3,), float(i + 1), requires_grad=True)
        out = forward(x)
        out.backward()
        print(i, out.item(), x.grad.tolist(), grads)
