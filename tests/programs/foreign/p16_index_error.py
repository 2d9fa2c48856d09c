import torch

log = []

def pick(x, idx):
    log.append("start")
    y = x * 2
    log.append(len(log))
    v = y[idx]
    log.append("picked")
    return v + 1

def main():
    global idx, x
    x = torch.arange(5.0)
    for idx in (torch.tensor([1, 2]), torch.tensor([4]), torch.tensor([7]), torch.tensor([0])):
        try:
            print(pick(x, idx).tolist(), log[-3:])
        except IndexError as e:
            print("IndexError", type(e).__name__, log[-3:])
