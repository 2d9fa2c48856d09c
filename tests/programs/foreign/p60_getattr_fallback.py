import torch

class Namespace:
    def __init__(self, **kw):
        self.__dict__.update(kw)
    def __getattr__(self, name):
        if name.startswith("opt_"):
            return None
        raise AttributeError(f"no {name}")

def apply(x, ns):
    y = x * ns.scale
    if ns.opt_shift is not None:
        y = y + ns.opt_shift
    try:
        z = ns.missing
    except AttributeError as e:
        z = str(e)
    return y, z, vars(ns).keys() - {"scale"}

def main():
    torch.set_num_threads(1)
    ns = Namespace(scale=2.0)
    for i in range(4):
        if i == 1:
            ns.opt_shift = 1.0
        if i == 2:
            ns.missing = "present"
        if i == 3:
            del ns.opt_shift
        y, z, k = apply(torch.ones(2), ns)
        print(i, y.tolist(), z, sorted(k))
