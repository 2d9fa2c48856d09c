import torch
from torch import nn


def step_stats(bn, xs, train):
    bn.train(train)
    outs = []
    for x in xs:
        y = bn(x)
        outs.append(round(y.mean().item(), 4))
    return outs, [round(v, 4) for v in bn.running_mean.tolist()], int(bn.num_batches_tracked)


def main():
    torch.manual_seed(32)
    bn = nn.BatchNorm1d(2, momentum=None)
    xs = [torch.randn(4, 2) + i for i in range(3)]
    print(step_stats(bn, xs, True))
    print(step_stats(bn, xs[:1], False))
    bn.reset_running_stats()
    bn.momentum = 0.5
    print(step_stats(bn, xs, True))
