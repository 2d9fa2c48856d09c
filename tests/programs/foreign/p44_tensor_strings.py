import torch

def describe(x):
    y = x.float() * 2
    parts = [
        str(x.dtype), repr(x.shape), f"{tuple(y.shape)}", "%d-d" % y.dim(), "{:.2f}".format(y.sum().item()),
        str(y.device), format(x.numel(), "04d"), f"{x.dtype!r}", str(x.size(0)), f"{y.dtype}".split(".")[-1],
        x.dtype.is_floating_point and "float" or "int", str(y.requires_grad),
    ]
    return " | ".join(parts), y

def main():
    torch.set_num_threads(1)
    for x in (torch.ones(2, 3), torch.arange(6, dtype=torch.int32).view(3, 2), torch.zeros(4, dtype=torch.float64), torch.ones(1, 1, 2, dtype=torch.int64)):
        s, y = describe(x)
        print(s, y.tolist())
