import torch, collections

def bucketize(values):
    groups = collections.defaultdict(list)
    for v in values:
        groups[int(v.argmax())].append(v)
    summary = collections.OrderedDict()
    for k in sorted(groups, reverse=True):
        summary[k] = torch.stack(groups[k]).mean(0)
    counts = collections.Counter({k: len(v) for k, v in groups.items()})
    return summary, counts.most_common(2)

def main():
    global _, c, i, s, t
    torch.manual_seed(12)
    for i in range(3):
        s, c = bucketize([torch.randn(3) for _ in range(5)])
        print(i, list(s.keys()), [round(t.sum().item(), 5) for t in s.values()], c)
