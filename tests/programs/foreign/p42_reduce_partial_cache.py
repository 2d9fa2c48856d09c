import functools, torch

SCALE = 2.0

@functools.lru_cache(maxsize=None)
def table(n):
    return tuple(i * SCALE for i in range(n))

def mul(a, b, c=1.0):
    return a * b * c

def run(x, n):
    t = table(n)
    f = functools.partial(mul, c=SCALE)
    y = functools.reduce(lambda acc, v: acc + f(x, v), t, torch.zeros_like(x))
    return y, t, table.cache_info().hits

def main():
    global SCALE
    torch.set_num_threads(1)
    for i, n in enumerate((3, 3, 2, 3)):
        if i == 2:
            SCALE = -1.0
        y, t, h = run(torch.ones(2), n)
        print(i, y.tolist(), t, h)
