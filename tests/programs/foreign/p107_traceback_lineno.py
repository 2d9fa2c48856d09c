import sys, traceback, torch

def inner(x, idx):
    y = x * 2
    return y[idx]

def outer(x, idx):
    try:
        z = inner(x, idx)
        return z.tolist(), None
    except IndexError as e:
        tb = traceback.extract_tb(e.__traceback__)
        return None, [(f.name, f.lineno, f.line) for f in tb], e.__traceback__.tb_lineno

def main():
    torch.set_num_threads(1)
    for idx in (torch.tensor([1]), torch.tensor([9]), 0, 7):
        print(outer(torch.arange(3.0), idx))
