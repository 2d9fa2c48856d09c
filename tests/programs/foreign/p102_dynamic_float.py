import torch

def scale(x, lr, mom):
    step = lr * 0.1 + mom / 3
    y = x - step
    return y.tolist(), step, repr(step), lr * 1e308 * 10, type(step).__name__, f"{lr:.20f}"

def main():
    torch.set_num_threads(1)
    for lr, mom in ((0.1, 0.9), (0.3, 0.7), (0.01, 0.99), (1e-7, 0.0)):
        print(scale(torch.ones(2, dtype=torch.float64), lr, mom))
