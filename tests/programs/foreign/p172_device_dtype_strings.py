import torch


def describe(t):
    dev = t.device
    return (
        str(dev), dev.type, dev.index, dev == torch.device("cpu"), dev == "cpu",
        str(t.dtype).split(".")[-1], t.dtype.is_floating_point, t.dtype.itemsize,
        repr(t.dtype), t.dtype in (torch.float16, torch.bfloat16), f"{t.layout}",
        t.dtype == torch.float, t.is_cpu, t.is_cuda,
    )


def pick_dtype(t, name):
    table = {"half": torch.float16, "double": torch.float64, "long": torch.int64}
    dt = table.get(name, t.dtype)
    y = t.to(dtype=dt, device="cpu")
    return y.dtype, y is t, y.sum().item()


def main():
    torch.set_num_threads(1)
    for t in (torch.ones(2), torch.arange(3), torch.zeros(1, dtype=torch.bfloat16)):
        print(describe(t))
    t = torch.tensor([1.5, 2.25])
    for name in ("half", "double", "long", "other"):
        print(pick_dtype(t, name))
