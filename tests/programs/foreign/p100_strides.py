import torch

def info(x):
    c = x.is_contiguous()
    y = x.contiguous() if not c else x
    return c, x.stride(), y.stride(), (x * 2).stride(), y.flatten().tolist()

def main():
    torch.set_num_threads(1)
    base = torch.arange(6.0).view(2, 3)
    for x in (base, base.t(), base[:, ::2], base.t().contiguous(), base.expand(2, 2, 3)[0]):
        print(info(x))
