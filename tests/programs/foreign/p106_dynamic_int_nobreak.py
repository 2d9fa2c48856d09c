import math, torch

def f(x, n):
    y = x * n
    vals = (n / 3, math.sqrt(n), n ** 0.5, n ** -1, n << 70, -n // 2, n % -3, round(n / 7, 3),
            n * 2**62, float(n) * 0.1, n / 3 * 3 == n, str(n / 3), hash(n), n.bit_length(), math.log(n),
            type(n) is int, type(n).__name__, {int: 2.0}.get(type(n), 1.0), isinstance(n // 2, int), type(n / 2).__name__,
            divmod(n, 4), abs(-n), n == 5.0, [n] * 2, (n, "a")[0] + 1, max(n, 6), min(n, 2.5), bool(n - 5), f"{n:03d}", "%5.2f" % (n / 3),
            n.__class__.__name__, int.__add__(n, 1), complex(n, 1), n.real, n.conjugate())
    return y, vals

def g(x, f_):
    y = x * f_
    return y, (f_ * 3, f_ / 7, repr(f_ + 0.1), type(f_).__name__, f_.is_integer(), math.floor(f_), round(f_, 1), f_.hex(), str(f_ * 1e20), f_ > 2, int(f_), f"{f_:.17g}")

def main():
    torch.set_num_threads(1)
    for n in (3, 5, 7, 11, 13):
        y, v = f(torch.ones(2), n)
        print(y.tolist(), v)
    for fl in (1.5, 2.25, 3.0, 0.1, 7.7):
        y, v = g(torch.ones(2), fl)
        print(y.tolist(), v)
