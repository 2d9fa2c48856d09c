import torch

@torch.no_grad()
def infer(w, x):
    return w * x, torch.is_grad_enabled()

@torch.enable_grad()
def trainy(w, x):
    y = (w * x).sum()
    return y.requires_grad, torch.is_grad_enabled()

def run(w, x):
    a, g1 = infer(w, x)
    b, g2 = trainy(w, x)
    return a.requires_grad, g1, b, g2, torch.is_grad_enabled()

def main():
    torch.set_num_threads(1)
    w = torch.ones(2, requires_grad=True)
    for i in range(4):
        if i == 2:
            with torch.no_grad():
                print(i, run(w, torch.ones(2)))
        else:
            print(i, run(w if i != 3 else w.detach(), torch.ones(2)))
