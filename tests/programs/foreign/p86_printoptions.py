import torch

def show(x):
    y = x / 3
    print(y)
    print(repr(y.sum()))
    return str(y[:1])

def main():
    torch.set_num_threads(1)
    for i, p in enumerate((4, 2, 6, 1)):
        torch.set_printoptions(precision=p)
        print(i, show(torch.arange(float(i + 2))))
    torch.set_printoptions(profile="default")
