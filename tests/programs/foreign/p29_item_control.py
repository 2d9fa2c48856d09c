import torch

def iterate(x, tol):
    steps = 0
    while x.abs().max().item() > tol and steps < 50:
        x = x / 2 + 0.01 * torch.sign(x)
        steps += 1
    status = "converged" if steps < 50 else "gave up"
    return x, steps, status

def main():
    global n, s, tol, v, x
    torch.manual_seed(15)
    for tol in (1.0, 0.1, 0.05):
        x, n, s = iterate(torch.randn(4) * 10, tol)
        print(tol, n, s, [round(v, 6) for v in x.tolist()])
