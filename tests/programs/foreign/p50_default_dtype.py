import torch

def make(n):
    a = torch.zeros(n)
    b = torch.tensor([1.5, 2.5])
    c = torch.arange(n) * 0.5
    return a.dtype, b.dtype, c.dtype, (a.sum() + b.sum() + c.sum()).item(), torch.get_default_dtype()

def main():
    torch.set_num_threads(1)
    for i, dt in enumerate((torch.float32, torch.float64, torch.float64, torch.float32)):
        torch.set_default_dtype(dt)
        print(i, make(2 + i % 2))
    torch.set_default_dtype(torch.float32)
