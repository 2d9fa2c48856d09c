import operator, torch

class P:
    def __init__(self, w, b):
        self.w, self.b = w, b

def f(objs, name, x):
    get = operator.attrgetter(name)
    vals = [get(o) for o in objs]
    first = operator.itemgetter(0, -1)(vals)
    return sum(v * x for v in vals).tolist(), [float(v) for v in first]

def main():
    torch.set_num_threads(1)
    objs = [P(torch.tensor(1.0), torch.tensor(2.0)), P(torch.tensor(3.0), torch.tensor(4.0))]
    for i, name in enumerate(("w", "b", "w", "b")):
        if i == 2:
            objs.append(P(torch.tensor(-1.0), torch.tensor(0.5)))
        if i == 3:
            objs[0].b = torch.tensor(10.0)
        print(i, f(objs, name, torch.ones(2)))
