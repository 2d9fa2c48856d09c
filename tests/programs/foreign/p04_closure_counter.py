import torch, functools

def make_layer(dim):
    calls = 0
    w = torch.ones(dim, dim) / dim
    def layer(x):
        nonlocal calls
        calls += 1
        return torch.relu(x @ w + calls)
    def count():
        return calls
    return layer, count

def main():
    global compose, count, i, layer, v, y
    layer, count = make_layer(3)
    compose = functools.reduce(lambda f, g: lambda x: g(f(x)), [layer, layer, torch.sigmoid])
    for i in range(4):
        y = compose(torch.full((2, 3), float(i)))
        print(i, [round(v, 5) for v in y.flatten().tolist()], count())
