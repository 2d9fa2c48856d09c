import torch


def safe_log(x):
    eps = torch.finfo(x.dtype).eps
    tiny = torch.finfo(x.dtype).tiny
    return torch.log(x.clamp_min(tiny)) + eps, eps


def convert(x, dtype):
    y = x.to(dtype)
    info = torch.iinfo(dtype) if not dtype.is_floating_point else torch.finfo(dtype)
    overflow = bool((x > info.max).any()) if x.is_floating_point() else False
    return y.tolist(), str(y.dtype), y.element_size(), overflow, info.bits


def main():
    torch.set_num_threads(1)
    x = torch.tensor([0.0, 1e-3, 2.5, 300.7, -129.2])
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        y, eps = safe_log(x.to(dt))
        print(dt, [round(v, 3) for v in y.tolist()], eps, y.dtype)
    for dt in (torch.int8, torch.uint8, torch.int32, torch.float16, torch.bool):
        print(convert(x, dt))
