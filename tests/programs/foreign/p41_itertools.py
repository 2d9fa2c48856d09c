import itertools, operator, torch

def summarize(xs, keyfn):
    groups = []
    for key, grp in itertools.groupby(sorted(xs, key=keyfn), key=keyfn):
        g = list(grp)
        groups.append((key, len(g), torch.stack(g).sum().item()))
    acc = list(itertools.accumulate([t.sum() for t in xs], operator.add))
    z = [(a if a is None else a.item(), b) for a, b in itertools.zip_longest(xs[:1], range(3))]
    sl = [t.max().item() for t in itertools.islice(itertools.chain(xs, reversed(xs)), 1, None, 2)]
    return groups, [a.item() for a in acc], z[1:], sl

def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    base = [torch.randint(0, 5, (2,)).float() for _ in range(5)]
    keys = [lambda t: int(t[0]) % 2, lambda t: t.sum().item() > 4, lambda t: 0, lambda t: -int(t[1])]
    for i, k in enumerate(keys):
        print(i, summarize(base[: 3 + i % 3], k))
