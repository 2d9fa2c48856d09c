import torch

CACHE = {}
MISSES = []


def get_mask(shape, device):
    key = f"{'x'.join(map(str, shape))}@{device}"
    if key not in CACHE:
        MISSES.append(key)
        CACHE[key] = torch.ones(shape, device=device).tril()
    return CACHE[key], key


def attend(q, k):
    scores = q @ k.transpose(-1, -2)
    mask, key = get_mask(tuple(scores.shape[-2:]), q.device)
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return scores.softmax(-1), key


def main():
    torch.manual_seed(12)
    for n in (3, 4, 3, 2, 4):
        q, k = torch.randn(n, 2), torch.randn(n, 2)
        p, key = attend(q, k)
        print(key, [round(v, 4) for v in p[-1].tolist()])
    print(MISSES, sorted(CACHE))
