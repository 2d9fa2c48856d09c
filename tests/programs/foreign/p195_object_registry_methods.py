import torch

REGISTRY = {}


def register(name):
    def deco(cls):
        REGISTRY[name] = cls
        cls.registered_as = name
        return cls
    return deco


class Loss:
    def __call__(self, pred, target):
        return self.compute(pred, target).mean()

    def compute(self, pred, target):
        raise NotImplementedError(type(self).__name__)


@register("l1")
class L1(Loss):
    def compute(self, pred, target):
        return (pred - target).abs()


@register("huber")
class Huber(Loss):
    def __init__(self, delta=1.0):
        self.delta = delta

    def compute(self, pred, target):
        d = (pred - target).abs()
        return torch.where(d < self.delta, 0.5 * d ** 2, self.delta * (d - 0.5 * self.delta))


@register("bad")
class Bad(Loss):
    pass


def evaluate(names, pred, target):
    out = {}
    for n in names:
        loss = REGISTRY[n]()
        try:
            out[n] = round(loss(pred, target).item(), 4)
        except NotImplementedError as e:
            out[n] = f"missing {e}"
    return out


def main():
    torch.set_num_threads(1)
    pred, target = torch.tensor([0.0, 2.0, 5.0]), torch.tensor([0.5, 0.0, 1.0])
    print(evaluate(["l1", "huber", "bad"], pred, target))
    Huber.__init__.__defaults__ = (3.0,)
    print(evaluate(["huber"], pred, target), sorted(c.registered_as for c in REGISTRY.values()))
