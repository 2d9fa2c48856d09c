import torch
from torch import nn


def make(model):
    opt = torch.optim.SGD(
        [
            {"params": model[0].parameters(), "lr": 0.1},
            {"params": model[1].parameters()},
        ],
        lr=0.01,
        momentum=0.9,
    )
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    return opt, sched


def epoch(model, opt, sched, x, y):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    lrs = [round(g["lr"], 5) for g in opt.param_groups]
    return round(loss.item(), 4), lrs, sched.get_last_lr() == lrs


def main():
    torch.manual_seed(15)
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    opt, sched = make(model)
    x, y = torch.randn(10, 3), torch.randn(10, 1)
    for i in range(5):
        print(i, epoch(model, opt, sched, x, y))
    sd = opt.state_dict()
    print(len(sd["state"]), sorted(sd["param_groups"][0]), sched.last_epoch)
    opt.param_groups[1]["lr"] = 1.0
    print(epoch(model, opt, sched, x, y))
