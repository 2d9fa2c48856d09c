import torch

LOG = []


def note(tag, t):
    LOG.append(f"{tag}:{t.sum().item():.1f}")
    return t


def build(x, extra):
    parts = [*extra, note("mid", x * 2), *extra]
    table = {**{"base": x}, "scaled": note("scaled", x * 3), **{k: v for k, v in zip("uv", extra)}}
    pair = (note("first", x + 1), *[note(f"e{i}", e) for i, e in enumerate(extra)])
    return len(parts), sorted(table), len(pair), torch.stack(parts).sum().item()


def main():
    torch.set_num_threads(1)
    x = torch.ones(2)
    for n in (0, 1, 2):
        extra = [torch.full((2,), float(i)) for i in range(n)]
        print(build(x, extra))
    print(LOG)
