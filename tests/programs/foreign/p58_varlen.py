import torch

def pad(seqs, value):
    n = max(len(s) for s in seqs)
    out = torch.full((len(seqs), n), value)
    lens = []
    for i, s in enumerate(seqs):
        out[i, :len(s)] = s
        lens.append(len(s))
    return out, lens, out.sum().item()

def main():
    torch.set_num_threads(1)
    cases = [[torch.ones(2), torch.ones(3)], [torch.arange(4.0)], [torch.ones(1), torch.ones(5), torch.ones(2)], [torch.ones(3), torch.ones(3)]]
    for i, c in enumerate(cases):
        o, l, s = pad(c, -1.0 * i)
        print(i, o.tolist(), l, s)
