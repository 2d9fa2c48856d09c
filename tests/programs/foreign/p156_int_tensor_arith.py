import torch


def buckets(values, width):
    idx = torch.div(values, width, rounding_mode="floor")
    rem = values % width
    trunc = torch.div(values, width, rounding_mode="trunc")
    mean = values.float().mean()
    return idx.tolist(), rem.tolist(), trunc.tolist(), (values // width).dtype, round(mean.item(), 4)


def mix(values, k):
    s = int(values.sum())
    r = s // k, s % k, -s // k, divmod(s, -k)
    t = values * k // 3
    return r, t.tolist(), (values / k).dtype, (values * 1.5).dtype, (values + True).dtype


def main():
    torch.set_num_threads(1)
    v = torch.tensor([-7, -1, 0, 3, 10])
    for w in (3, 4, -2):
        print(buckets(v, w))
    for k in (2, 5):
        print(mix(v, k))
    print(mix(torch.tensor([1, 2], dtype=torch.int8), 7))
