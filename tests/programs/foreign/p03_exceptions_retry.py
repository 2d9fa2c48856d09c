import torch

class TooBig(Exception):
    pass

def check(x, limit):
    s = x.abs().sum()
    if s > limit:
        raise TooBig(f"sum {s.item():.3f} > {limit}")
    return x * 2

def robust(x, limit):
    attempts = []
    for scale in (1.0, 0.5, 0.1):
        try:
            return check(x * scale, limit), attempts
        except TooBig as e:
            attempts.append(str(e))
        finally:
            attempts.append("tried")
    return None, attempts

def main():
    global a, lim, r
    torch.manual_seed(1)
    for lim in (100.0, 5.0, 1.0, 0.01):
        r, a = robust(torch.randn(5), lim)
        print(lim, None if r is None else r.sum().item(), a)
