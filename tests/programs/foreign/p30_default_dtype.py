import torch

def make(n, double=False):
    old = torch.get_default_dtype()
    if double:
        torch.set_default_dtype(torch.float64)
    try:
        t = torch.ones(n) / 3
        return t, t.dtype, torch.get_default_dtype()
    finally:
        torch.set_default_dtype(old)

def main():
    global cur, d, dt, t
    for d in (False, True, False):
        t, dt, cur = make(2, d)
        print(t.tolist(), dt, cur, torch.get_default_dtype())
