import torch

def memo(x, key, cache={}):
    if key in cache:
        return cache[key] + x, True, len(cache)
    cache[key] = x * 10
    return cache[key], False, len(cache)

def main():
    torch.set_num_threads(1)
    for k in ("a", "b", "a", ("t", 1)):
        y, hit, n = memo(torch.ones(2), k)
        print(k, y.tolist(), hit, n)
    print(sorted(map(str, memo.__defaults__[0])))
