import torch

class Params:
    __slots__ = ("_store",)
    def __init__(self, **kw):
        object.__setattr__(self, "_store", dict(kw))
    def __getattr__(self, name):
        try:
            return self._store[name]
        except KeyError:
            raise AttributeError(name) from None
    def __setattr__(self, name, value):
        self._store[name] = value

def apply(p, x):
    y = x * p.scale
    if hasattr(p, "shift"):
        y = y + p.shift
    p.last = float(y.mean())
    return y, getattr(p, "missing", "default"), sorted(p._store)

def main():
    global d, i, keys, p, y
    p = Params(scale=2.0)
    for i in range(3):
        if i == 1:
            p.shift = torch.ones(2)
        y, d, keys = apply(p, torch.arange(2.0))
        print(i, y.tolist(), d, keys, p.last)
