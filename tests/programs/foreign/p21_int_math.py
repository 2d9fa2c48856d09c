import torch, math

def geometry(x):
    n, d = x.shape
    half = d // 2
    pad = (-n) % 4
    scale = math.sqrt(d) / (n + 1)
    y = torch.nn.functional.pad(x, (0, 0, 0, pad))
    return y[:, :half] * scale, (n, d, half, pad, round(scale, 6), hash(n), n.bit_length(), divmod(d, 3))

def main():
    global info, shape, y
    for shape in [(3, 4), (5, 6), (8, 2), (1, 7)]:
        y, info = geometry(torch.ones(shape))
        print(tuple(y.shape), info, type(info[0]).__name__)
