import torch


class EarlyStop(Exception):
    def __init__(self, epoch, best):
        super().__init__(f"stopped at epoch {epoch} (best {best:.4f})")
        self.epoch = epoch
        self.best = best


class Stopper:
    def __init__(self, patience):
        self.patience = patience
        self.best = float("inf")
        self.bad = 0

    def check(self, epoch, loss):
        if loss < self.best - 1e-4:
            self.best = loss
            self.bad = 0
        else:
            self.bad += 1
            if self.bad >= self.patience:
                raise EarlyStop(epoch, self.best)


def epoch_loss(w, x, y, lr):
    loss = ((x @ w - y) ** 2).mean()
    grad = torch.autograd.grad(loss, w)[0]
    with torch.no_grad():
        w -= lr * grad
    return loss.item()


def fit(x, y, lr, patience, epochs=50):
    w = torch.zeros(x.shape[1], requires_grad=True)
    stopper = Stopper(patience)
    history = []
    try:
        for epoch in range(epochs):
            loss = epoch_loss(w, x, y, lr)
            history.append(round(loss, 4))
            stopper.check(epoch, loss)
    except EarlyStop as e:
        return "early", e.epoch, str(e), history[-3:]
    finally:
        history.append("done")
    return "full", len(history), history[-3:]


def main():
    torch.manual_seed(3)
    x = torch.randn(8, 2)
    y = x @ torch.tensor([1.5, -2.0])
    print(fit(x, y, 0.1, 2, epochs=5))
    print(fit(x, y, 1.9, 2))
    print(fit(x, y, 5.0, 1))
