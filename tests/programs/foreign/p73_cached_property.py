import functools, torch

class Model:
    def __init__(self, n):
        self.n = n
        self.builds = 0
    @functools.cached_property
    def weight(self):
        self.builds += 1
        return torch.arange(float(self.n))
    @property
    def double(self):
        return self.weight * 2

def run(m, x):
    return (m.double * x).sum().item(), m.builds, "weight" in vars(m)

def main():
    torch.set_num_threads(1)
    m = Model(3)
    for i in range(5):
        if i == 2:
            del m.weight
            m.n = 3
        if i == 3:
            m.weight = torch.ones(3)
        print(i, run(m, torch.full((3,), float(i))))
