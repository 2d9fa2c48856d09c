import torch

class Box:
    def __init__(self, t):
        self.t = t
    def __repr__(self):
        return f"Box({self.t.tolist()}, {self.t.dtype})"
    def __str__(self):
        return f"<box sum={self.t.sum().item()}>"

def show(b, x):
    b.t = b.t + x
    print(b, repr(b), [b])
    return str(b)

def main():
    torch.set_num_threads(1)
    b = Box(torch.zeros(2))
    for i in range(4):
        if i == 2:
            b.t = b.t.double()
        print(i, show(b, torch.ones(2)))
