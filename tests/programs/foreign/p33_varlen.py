import torch

def pad_batch(seqs):
    n = max(len(s) for s in seqs)
    out = torch.zeros(len(seqs), n)
    mask = torch.zeros(len(seqs), n, dtype=torch.bool)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = s
        mask[i, : len(s)] = True
    return out, mask, (out.sum(1) / mask.sum(1)).tolist()

def main():
    global _, k, m, means, o, seqs, v
    torch.manual_seed(17)
    for k in range(12):
        seqs = [torch.randn(int(torch.randint(1, 6, ()))) for _ in range(1 + k % 3)]
        o, m, means = pad_batch(seqs)
        print(k, tuple(o.shape), int(m.sum()), [round(v, 5) for v in means])
