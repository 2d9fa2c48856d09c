import torch

class Seq:
    def __init__(self, data):
        self.data = data
    def __getitem__(self, i):
        if i >= len(self.data):
            raise IndexError(i)
        return self.data[i]

class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        k = self.n
        while k > 0:
            yield k
            k -= 1

def use(x, s, c):
    acc = x.clone()
    for t in s:
        acc = acc + t
    ks = [k for k in c]
    return acc, ks, list(reversed(ks)), 3 in c

def main():
    torch.set_num_threads(1)
    for i in range(4):
        s = Seq([torch.ones(2) * j for j in range(i)])
        y, ks, rk, has = use(torch.zeros(2), s, Countdown(i + 1))
        print(i, y.tolist(), ks, rk, has)
