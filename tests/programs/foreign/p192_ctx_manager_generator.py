import contextlib

import torch

STACK = []


@contextlib.contextmanager
def tagged(name, t):
    STACK.append(name)
    before = t.clone()
    try:
        yield before
    except ValueError as e:
        STACK.append(f"handled {e}")
    finally:
        STACK.append(f"leave {name} delta={(t - before).sum().item():.1f}")
        STACK.remove(name)


def work(t, k):
    with tagged("outer", t) as snap:
        t.add_(k)
        with tagged("inner", t):
            t.mul_(2)
            if k == 2:
                raise ValueError("k is two")
        t.sub_(1)
    return t.tolist(), snap.tolist()


def main():
    torch.set_num_threads(1)
    t = torch.zeros(2)
    for k in (1, 2, 3):
        print(work(t, k))
    print(STACK)
