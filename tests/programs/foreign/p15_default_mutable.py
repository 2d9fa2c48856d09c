import torch

def accumulate(t, seen=[]):
    seen.append(t.sum().item())
    return t * len(seen), list(seen)

def main():
    global i, r, s
    for i in range(4):
        r, s = accumulate(torch.full((2,), float(i)))
        print(i, r.tolist(), s)
    print(accumulate.__defaults__[0])
