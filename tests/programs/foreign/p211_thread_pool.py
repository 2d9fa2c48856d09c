import threading
from concurrent.futures import ThreadPoolExecutor

import torch

LOCK = threading.Lock()
SEEN = []


def score(x, k):
    y = (x * k).softmax(0)
    with LOCK:
        SEEN.append(k)
    return round(y.max().item(), 4), torch.is_grad_enabled()


def run_all(xs, ks):
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(score, x, k) for x, k in zip(xs, ks)]
        return [f.result() for f in futures]


def main():
    torch.manual_seed(38)
    xs = [torch.randn(4) for _ in range(6)]
    print(run_all(xs, [1, 2, 3, 1, 2, 3]))
    with torch.no_grad():
        print(run_all(xs[:2], [0.5, 4]))
    print(sorted(SEEN))
