import torch

def chunks(x, lens_t):
    lens = lens_t.tolist()
    parts = torch.split(x, lens)
    means = [p.mean().item() if p.numel() else None for p in parts]
    half = x[: x.shape[0] // 2]
    return means, half.tolist(), len(parts)

def main():
    torch.set_num_threads(1)
    for n, lens in ((6, [2, 4]), (6, [1, 2, 3]), (4, [4]), (5, [0, 5])):
        print(chunks(torch.arange(float(n)), torch.tensor(lens)))
