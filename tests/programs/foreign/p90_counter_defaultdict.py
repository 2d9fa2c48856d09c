import collections, torch

def count(x, c, dd):
    vals = x.round().int().tolist()
    c.update(vals)
    for v in vals:
        dd[v % 3].append(v)
    top = c.most_common(2)
    return top, dict(dd), sorted(c.elements())[:4], c[99]

def main():
    torch.set_num_threads(1)
    c = collections.Counter()
    dd = collections.defaultdict(list)
    for i in range(4):
        print(i, count(torch.tensor([1.2, 2.6, 3.0]) * i, c, dd), len(c))
