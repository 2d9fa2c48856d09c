import torch

def show(x):
    y = x * 3
    print("y =", y)
    print(f"{y.shape} {y.dtype} {y.device} {y.requires_grad}")
    z = y[y > 0]
    print("positives:", z, len(z))
    return z.sum()

def main():
    global i
    torch.manual_seed(9)
    for i in range(3):
        print(show(torch.randn(2, 3)))
