import math

import torch


def warmup_cosine(total, warm):
    def fn(step):
        if step < warm:
            return (step + 1) / warm
        prog = (step - warm) / max(1, total - warm)
        return 0.5 * (1 + math.cos(math.pi * prog))
    return fn


def run(steps, warm):
    w = torch.nn.Parameter(torch.tensor([1.0, -1.0]))
    opt = torch.optim.SGD([w], lr=0.3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(steps, warm))
    lrs = []
    for _ in range(steps):
        loss = (w ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 4))
    return lrs, [round(v, 4) for v in w.tolist()]


def main():
    torch.set_num_threads(1)
    print(run(5, 2))
    print(run(4, 0))
