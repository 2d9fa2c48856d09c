import torch
from torch import nn


def train(model, opt, batches, accum):
    log = []
    opt.zero_grad()
    for i, (x, y) in enumerate(batches):
        loss = nn.functional.mse_loss(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0 or i == len(batches) - 1:
            gnorm = sum(p.grad.norm() ** 2 for p in model.parameters()) ** 0.5
            opt.step()
            opt.zero_grad()
            log.append((i, round(gnorm.item(), 4)))
    return log, [p.grad for p in model.parameters()]


def main():
    torch.manual_seed(27)
    model = nn.Linear(2, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    batches = [(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(5)]
    for accum in (2, 3, 1):
        log, grads = train(model, opt, batches, accum)
        print(accum, log, grads)
    print([round(v, 4) for v in model.weight.flatten().tolist()], opt.state[model.weight]["step"])
