import torch

def f(x, log):
    y = x * 2
    log.append("loss %s" % y.sum())
    log.append("v=%r" % (y.shape,))
    log.append("%.3f|%d" % (y.mean().item(), y.numel()))
    log.append("{} {}".format(y.dtype, y[0]))
    return y

def main():
    torch.set_num_threads(1)
    log = []
    for i in range(4):
        f(torch.ones(2 + i % 2) * i, log)
    print(log)
