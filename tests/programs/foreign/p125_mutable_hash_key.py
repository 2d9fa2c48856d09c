import torch

class Key:
    def __init__(self, name):
        self.name = name
    def __hash__(self):
        return hash(self.name)
    def __eq__(self, other):
        return isinstance(other, Key) and other.name == self.name

def lookup(x, table, key):
    hit = key in table
    val = table.get(key, 0.0)
    return x * val, hit, sorted(k.name for k in table)

def main():
    torch.set_num_threads(1)
    a, b = Key("a"), Key("b")
    table = {a: 2.0, b: 3.0}
    probe = Key("a")
    for i in range(4):
        if i == 1:
            probe.name = "b"
        if i == 2:
            table[Key("c")] = 5.0
            probe.name = "c"
        if i == 3:
            probe.name = "zz"
        y, hit, names = lookup(torch.ones(2), table, probe)
        print(i, y.tolist(), hit, names)
