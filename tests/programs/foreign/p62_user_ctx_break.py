import torch, contextlib

EVENTS = []

class Track:
    def __init__(self, name):
        self.name = name
    def __enter__(self):
        EVENTS.append("enter " + self.name)
        return self
    def __exit__(self, et, ev, tb):
        EVENTS.append(f"exit {self.name} {et.__name__ if et else None}")
        return et is KeyError

@contextlib.contextmanager
def scope(tag):
    EVENTS.append("open " + tag)
    try:
        yield tag.upper()
    finally:
        EVENTS.append("close " + tag)

def work(x, idx, d):
    with Track("outer"):
        with scope("s") as t:
            y = x * 2
            print("inside", t)
            z = y[idx]
            d[t]
    return z

def main():
    torch.set_num_threads(1)
    x = torch.arange(4.0)
    for i, (idx, d) in enumerate(((torch.tensor(1), {"S": 1}), (torch.tensor(2), {}), (torch.tensor(10), {"S": 0}), (torch.tensor(0), {"S": 2}))):
        try:
            r = work(x, idx, d)
            r = None if r is None else r.item()
        except Exception as e:
            r = type(e).__name__
        print(i, r, EVENTS)
        EVENTS.clear()
