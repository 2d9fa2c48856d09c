import math

import torch


def shapes(x):
    s = x.shape
    out = {
        "plus": s + (1,),
        "rev": s[::-1],
        "numel": s.numel(),
        "prod": math.prod(s),
        "eq_tuple": s == tuple(s),
        "eq_list": s == list(s),
        "type": type(s[1:]).__name__,
        "last": s[-1],
        "idx": s.index(s[-1]),
        "count": s.count(2),
        "str": str(s[1:]),
        "unpack": [d * 2 for d in s],
    }
    y = x.reshape(*s[:-2], -1)
    out["reshaped"] = tuple(y.shape)
    out["new"] = tuple(x.new_zeros(s[1:] + s[:1]).shape)
    return out


def main():
    torch.set_num_threads(1)
    for shape in ((2, 3, 4), (1, 2, 2), (5, 2, 1, 2)):
        for k, v in shapes(torch.zeros(shape)).items():
            print(k, v)
