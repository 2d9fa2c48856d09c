import torch, enum, typing

class Mode(enum.Enum):
    SUM = "sum"
    MEAN = "mean"

class Out(typing.NamedTuple):
    value: torch.Tensor
    mode: Mode
    n: int = 0

def reduce(x, mode: Mode):
    v = x.sum() if mode is Mode.SUM else x.mean()
    return Out(v, mode, x.numel())

def main():
    global m, o
    for m in (Mode.SUM, Mode.MEAN, Mode("sum")):
        o = reduce(torch.arange(4.0), m)
        print(o.value.item(), o.mode.name, o.n, o._replace(n=-1).n, type(o).__name__, o._fields)
