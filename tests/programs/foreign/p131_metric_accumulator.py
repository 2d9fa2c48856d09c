import torch


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    @property
    def mean(self):
        return self.total / self.count if self.count else float("nan")


class Metrics:
    def __init__(self, names):
        self.meters = {name: RunningMean() for name in names}

    def update(self, **values):
        for k, v in values.items():
            self.meters[k].update(v)

    def summary(self):
        return {k: round(m.mean, 4) for k, m in self.meters.items()}


@torch.no_grad()
def evaluate(model, xs, ys, metrics):
    for x, y in zip(xs, ys):
        out = model(x)
        mse = ((out - y) ** 2).mean()
        mae = (out - y).abs().mean()
        metrics.update(mse=mse, mae=mae.item())
    return metrics.summary(), torch.is_grad_enabled()


def main():
    torch.manual_seed(1)
    model = torch.nn.Linear(3, 1)
    xs = [torch.randn(4, 3) for _ in range(3)]
    ys = [torch.randn(4, 1) for _ in range(3)]
    m = Metrics(["mse", "mae"])
    print(evaluate(model, xs, ys, m))
    print(evaluate(model, xs[:1], ys[:1], m), m.meters["mse"].count)
    empty = Metrics(["mse"])
    print(empty.summary(), torch.is_grad_enabled())
