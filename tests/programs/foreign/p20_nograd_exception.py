import torch

def guarded(x, fail):
    with torch.no_grad():
        y = x * 2
        if fail:
            raise ValueError("boom")
    return y, torch.is_grad_enabled()

def main():
    global fail, g, x, y
    x = torch.ones(3, requires_grad=True)
    for fail in (False, True, False):
        try:
            y, g = guarded(x, fail)
            print(y.requires_grad, g)
        except ValueError as e:
            print("error", e, torch.is_grad_enabled())
