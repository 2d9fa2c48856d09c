import torch


class Augment:
    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)

    def __call__(self, x):
        if torch.rand((), generator=self.gen) < 0.5:
            x = x.flip(-1)
        noise = torch.randn(x.shape, generator=self.gen) * 0.1
        shift = int(torch.randint(0, 3, (), generator=self.gen))
        return torch.roll(x + noise, shift, dims=-1), shift


def batch_aug(aug, xs):
    outs, shifts = [], []
    for x in xs:
        y, s = aug(x)
        outs.append(y)
        shifts.append(s)
    return torch.stack(outs), shifts


def main():
    torch.manual_seed(8)
    xs = [torch.arange(4.0) * i for i in range(3)]
    aug = Augment(123)
    for _ in range(2):
        y, shifts = batch_aug(aug, xs)
        print(shifts, [round(v, 3) for v in y.sum(1).tolist()])
    state = aug.gen.get_state()
    y1, s1 = batch_aug(aug, xs)
    aug.gen.set_state(state)
    y2, s2 = batch_aug(aug, xs)
    print(s1 == s2, torch.equal(y1, y2), aug.gen.initial_seed())
    print(round(torch.rand(()).item(), 5))
