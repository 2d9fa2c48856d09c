import copy, torch

class State:
    def __init__(self):
        self.t = torch.zeros(2)
        self.hist = [1]

def f(s, x):
    a = copy.copy(s)
    b = copy.deepcopy(s)
    a.hist.append(2)
    b.hist.append(3)
    b.t += x
    a.t += 1
    return s.t.tolist(), s.hist, b.t.tolist(), b.hist, a.t is s.t

def main():
    torch.set_num_threads(1)
    s = State()
    for i in range(4):
        print(i, f(s, torch.ones(2) * i))
