import torch

LOG = []
state = {"n": 0}

class Acc:
    def __init__(self):
        self.vals = []

def step(x, idx, acc):
    LOG.append("start")
    state["n"] += 1
    acc.vals.append(x.sum().item())
    acc.last = idx.tolist()
    y = x[idx]
    LOG.append("end")
    return y * 2

def main():
    torch.set_num_threads(1)
    acc = Acc()
    x = torch.arange(4.0)
    for i, idx in enumerate([torch.tensor([0, 1]), torch.tensor([9]), torch.tensor([3]), torch.tensor([-7])]):
        try:
            r = step(x, idx, acc).tolist()
        except IndexError as e:
            r = "IndexError"
        print(i, r, LOG, state, acc.vals, acc.last)
