import torch


def train_iter(w, data, lr):
    for epoch in range(3):
        total = 0.0
        for x, y in data:
            pred = x @ w
            loss = ((pred - y) ** 2).mean()
            (g,) = torch.autograd.grad(loss, w)
            with torch.no_grad():
                w -= lr * g
            total += loss.item()
            if loss.item() < 1e-3:
                yield epoch, "converged", round(loss.item(), 6)
                return
        yield epoch, "epoch", round(total / len(data), 4)


def main():
    torch.manual_seed(14)
    true_w = torch.tensor([2.0, -1.0])
    data = []
    for _ in range(4):
        x = torch.randn(5, 2)
        data.append((x, x @ true_w))
    for lr in (0.05, 0.5):
        w = torch.zeros(2, requires_grad=True)
        events = list(train_iter(w, data, lr))
        print(lr, events, [round(v, 3) for v in w.tolist()])
    w = torch.zeros(2, requires_grad=True)
    it = train_iter(w, data, 0.1)
    print(next(it))
    it.close()
    print([round(v, 3) for v in w.tolist()], next(it, "exhausted"))
