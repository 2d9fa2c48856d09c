import torch


def move(batch, dtype):
    if isinstance(batch, torch.Tensor):
        return batch.to(dtype) if batch.is_floating_point() else batch
    if isinstance(batch, dict):
        return {k: move(v, dtype) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(move(v, dtype) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(move(v, dtype) for v in batch)
    return batch


def describe(batch, prefix=""):
    if isinstance(batch, torch.Tensor):
        return [f"{prefix}:{batch.dtype}:{list(batch.shape)}"]
    if isinstance(batch, dict):
        return [s for k in sorted(batch) for s in describe(batch[k], f"{prefix}.{k}")]
    if isinstance(batch, (list, tuple)):
        return [s for i, v in enumerate(batch) for s in describe(v, f"{prefix}[{i}]")]
    return [f"{prefix}={batch!r}"]


def main():
    from collections import namedtuple

    Pair = namedtuple("Pair", "a b")
    batch = {
        "x": torch.ones(2, 3),
        "ids": torch.arange(3),
        "meta": [Pair(torch.zeros(1), "tag"), (torch.ones(2, dtype=torch.float64), 7)],
        "none": None,
    }
    for dt in (torch.float16, torch.float64):
        moved = move(batch, dt)
        print(describe(moved))
        print(type(moved["meta"][0]).__name__, moved["meta"][0].b, type(moved["meta"][1]).__name__)
    print(describe(batch) == describe(move(batch, torch.float32)))
