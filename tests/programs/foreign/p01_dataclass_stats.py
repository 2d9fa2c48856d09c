import dataclasses, torch

@dataclasses.dataclass
class Stats:
    n: int = 0
    total: float = 0.0
    history: list = dataclasses.field(default_factory=list)

    def update(self, t):
        self.n += t.numel()
        self.total += float(t.sum())
        self.history.append(round(self.total / max(self.n, 1), 4))
        return self

def step(x, stats):
    y = torch.tanh(x) * 2
    stats.update(y)
    if stats.n > 20:
        y = y - y.mean()
    return y, dataclasses.asdict(stats)["history"][-1]

def main():
    global i, last, out, s
    s = Stats()
    for i in range(6):
        torch.manual_seed(i)
        out, last = step(torch.randn(2, 3), s)
        print(i, out.sum().item().__round__(5), last, s.n, len(s.history))
    print(dataclasses.replace(s, n=0).n, s == Stats(s.n, s.total, list(s.history)))
