import torch

def step(w, g, lr):
    try:
        w.sub_(g * lr)
        return "ok", w.tolist()
    except RuntimeError as e:
        return "err", str(e)[:60]

def main():
    torch.set_num_threads(1)
    w = torch.ones(2)
    for i in range(4):
        if i == 1:
            w.requires_grad_(True)
        if i == 3:
            w = w.detach().clone()
        print(i, step(w, torch.ones(2), 0.5))
