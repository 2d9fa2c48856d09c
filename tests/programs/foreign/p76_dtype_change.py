import torch

def ops(x):
    a = x // 2 if not x.is_floating_point() else x / 2
    b = ~x if x.dtype in (torch.bool, torch.int64, torch.int32) else -x
    c = (x * 3) % 4
    return a.tolist(), b.tolist(), c.tolist(), str(a.dtype), (x > 0).sum().item()

def main():
    torch.set_num_threads(1)
    for x in (torch.tensor([3, -5]), torch.tensor([3.0, -5.0]), torch.tensor([True, False]), torch.tensor([7, 2], dtype=torch.int32), torch.tensor([3, -5])):
        print(ops(x))
