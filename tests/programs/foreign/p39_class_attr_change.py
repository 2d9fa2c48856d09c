import torch

class Layer:
    factor = 2
    bias = None
    def __init__(self):
        self.calls = 0
    def __call__(self, x):
        self.calls += 1
        y = x * type(self).factor
        if self.bias is not None:
            y = y + self.bias
        return y, self.calls, Layer.__dict__.get("extra", "none")

def main():
    torch.set_num_threads(1)
    l = Layer()
    x = torch.ones(2)
    for i in range(5):
        if i == 1:
            Layer.factor = 5
        if i == 2:
            Layer.bias = torch.tensor([1.0, -1.0])
        if i == 3:
            Layer.extra = "set"
            l.bias = torch.zeros(2)
        if i == 4:
            del Layer.extra
            del l.bias
        y, c, e = l(x)
        print(i, y.tolist(), c, e)
