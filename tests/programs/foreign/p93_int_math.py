import math, torch

def m(x):
    v = x.sum().item()
    return round(v, 2), divmod(int(v), 3), pow(int(abs(v)) + 2, 3, 5), math.floor(v), int(x.min()), math.isclose(v, 1.5), -v // 2, v % -3

def main():
    torch.set_num_threads(1)
    for x in (torch.tensor([1.25, 0.25]), torch.tensor([-7.5]), torch.tensor([3.0, 4.0]), torch.tensor([-0.0])):
        print(m(x))
