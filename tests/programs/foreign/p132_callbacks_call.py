import torch


class Scale:
    def __init__(self, factor):
        self.factor = factor
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x * self.factor


class Logger:
    def __init__(self):
        self.lines = []

    def __call__(self, step, loss):
        self.lines.append(f"step={step} loss={loss:.3f}")


def train(x, transforms, callbacks, steps):
    w = torch.ones(x.shape[1], requires_grad=True)
    for step in range(steps):
        y = x
        for t in transforms:
            y = t(y)
        loss = (y @ w).pow(2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.01 * w.grad
            w.grad.zero_()
        for cb in callbacks:
            cb(step, loss.item())
    return w.detach()


def main():
    torch.manual_seed(2)
    x = torch.randn(5, 3)
    s1, s2 = Scale(2.0), Scale(-0.5)
    log = Logger()
    seen = []
    w = train(x, [s1, s2, torch.tanh], [log, lambda s, l: seen.append(s)], 3)
    print([round(v, 4) for v in w.tolist()], s1.calls, s2.calls, seen)
    print("\n".join(log.lines))
    s1.factor = 3
    w = train(x, [s1], [log], 2)
    print([round(v, 4) for v in w.tolist()], s1.calls, len(log.lines), log.lines[-1])
