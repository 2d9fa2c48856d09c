import math, torch

def f(x, n):
    y = x * n
    return (y.tolist(), n / 3, math.sqrt(n), n ** 0.5, n ** -1, n << 70, -n // 2, n % -3, round(n / 7, 3),
            n * 2**62, float(n) * 0.1, n / 3 * 3 == n, str(n / 3), hash(n), n.bit_length(), math.log(n))

def main():
    torch.set_num_threads(1)
    for n in (3, 5, 7, 11, 13):
        print(f(torch.ones(2), n))
