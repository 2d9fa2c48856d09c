import torch

EVENTS = []


class Timer:
    depth = 0

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        Timer.depth += 1
        EVENTS.append(f"enter {self.name} d={Timer.depth}")
        return self

    def __exit__(self, typ, val, tb):
        Timer.depth -= 1
        EVENTS.append(f"exit {self.name} {typ.__name__ if typ else None}")
        return typ is ZeroDivisionError


class Scratch:
    def __init__(self, buf):
        self.buf = buf

    def __enter__(self):
        self.saved = self.buf.clone()
        return self.buf

    def __exit__(self, *exc):
        self.buf.copy_(self.saved)
        return False


def compute(x, k):
    with Timer("outer") as t:
        y = x * 2
        with Timer("inner"):
            if k == 0:
                1 / k
            y = y + k
        EVENTS.append(f"{t.name} y={y.sum().item():.1f}")
    return y


def scratch_work(buf, k):
    with Scratch(buf) as b:
        b.add_(k)
        s = b.sum().item()
        if k > 5:
            raise ValueError(f"too big {k}")
    return s, buf.tolist()


def main():
    torch.set_num_threads(1)
    x = torch.ones(3)
    for k in (1, 0, 2):
        y = compute(x, k)
        print(k, y.tolist(), Timer.depth)
    print(EVENTS)
    buf = torch.zeros(2)
    for k in (1, 7, 3):
        try:
            print(scratch_work(buf, k))
        except ValueError as e:
            print("error", e, buf.tolist())
