import torch

def running_mean():
    total = None
    n = 0
    try:
        while True:
            x = yield (None if total is None else total / n)
            total = x if total is None else total + x
            n += 1
    finally:
        print("closed at", n)

def use(xs):
    g = running_mean()
    next(g)
    outs = [g.send(x) for x in xs]
    g.close()
    return [o.tolist() for o in outs]

def main():
    torch.set_num_threads(1)
    for k in range(1, 5):
        print(use([torch.full((2,), float(i)) for i in range(k)]))
