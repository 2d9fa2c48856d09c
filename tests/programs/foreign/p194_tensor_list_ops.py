import torch


def pad_batch(seqs, pad_value):
    lengths = [len(s) for s in seqs]
    longest = max(lengths)
    out = torch.full((len(seqs), longest), pad_value, dtype=seqs[0].dtype)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = s
    mask = torch.arange(longest)[None, :] < torch.tensor(lengths)[:, None]
    order = sorted(range(len(seqs)), key=lambda i: -lengths[i])
    return out.tolist(), mask.sum(1).tolist(), order


def main():
    torch.set_num_threads(1)
    print(pad_batch([torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6])], 0))
    print(pad_batch([torch.tensor([1.5, 2.5])], -1.0))
    print(pad_batch([torch.arange(4), torch.arange(4), torch.arange(1)], 9))
