import torch

REGISTRY = []
CALLS = {"n": 0}

def register(fn):
    REGISTRY.append(fn.__name__)
    return fn

@register
def square(x):
    CALLS["n"] += 1
    return x * x

@register
def halve(x):
    CALLS["n"] += 1
    return x / 2

def pipeline(x, names):
    table = {f.__name__: f for f in (square, halve)}
    for n in names:
        x = table[n](x)
    return x

def main():
    global names, y
    for names in (["square"], ["halve", "square"], ["square", "square", "halve"], []):
        y = pipeline(torch.arange(4.0), names)
        print(names, y.tolist(), CALLS["n"], REGISTRY)
