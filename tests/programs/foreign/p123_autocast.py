import torch

def f(a, b):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        c = a @ b
        d = c + 1
    e = d.float() * 2
    return c.dtype, d.dtype, e.dtype, [round(v, 2) for v in e.flatten().tolist()], torch.is_autocast_cpu_enabled()

def main():
    torch.set_num_threads(1)
    for n in (2, 2, 3, 1):
        print(f(torch.ones(n, 2), torch.ones(2, n)))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        print(f(torch.ones(2, 2), torch.ones(2, 2)))
