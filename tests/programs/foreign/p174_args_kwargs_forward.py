import torch


def layer(x, *, scale=1.0, bias=None, act=None):
    y = x * scale
    if bias is not None:
        y = y + bias
    return act(y) if act else y


def pipeline(x, *specs, **common):
    outs = []
    for spec in specs:
        kwargs = {**common, **spec}
        x = layer(x, **kwargs)
        outs.append(round(x.sum().item(), 4))
    return x, outs, sorted(common)


def splat(*tensors):
    a, *mid, b = tensors
    return (a - b).tolist(), len(mid), torch.stack(mid).sum().item() if mid else None


def main():
    torch.set_num_threads(1)
    x = torch.tensor([1.0, -2.0])
    print(pipeline(x, {"scale": 2.0}, {"act": torch.relu}, bias=torch.ones(2))[1:])
    print(pipeline(x, {}, {"scale": -1.0, "bias": None})[1:])
    print(pipeline(x, {"act": torch.sigmoid}, scale=3)[1:])
    ts = [torch.full((2,), float(i)) for i in range(4)]
    print(splat(*ts))
    print(splat(*ts[:2]))
    try:
        layer(x, 2.0)
    except TypeError as e:
        print("TypeError", e)
