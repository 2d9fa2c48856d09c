import torch

class Tracker:
    def __init__(self):
        self._reads = 0
        self.w = torch.ones(3)
    @property
    def weight(self):
        self._reads += 1
        return self.w * self._reads
    def __len__(self):
        return self._reads

def apply(t, x):
    a = x @ t.weight
    b = x @ t.weight
    return a + b, len(t)

def main():
    global i, n, r, t
    t = Tracker()
    for i in range(3):
        r, n = apply(t, torch.ones(2, 3) * i)
        print(i, r.tolist(), n, t._reads)
