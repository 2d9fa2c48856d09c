import torch

def stream(x, n, log):
    for i in range(n):
        log.append(i)
        y = x * i
        if y.sum() > 10:
            return
        yield y

def main():
    torch.set_num_threads(1)
    for k, n in enumerate((3, 5, 2, 6)):
        log = []
        out = [t.tolist() for t in stream(torch.ones(2) * (k + 1), n, log)]
        print(k, out, log)
