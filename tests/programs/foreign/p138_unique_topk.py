import torch


def vocab_stats(tokens, k):
    uniq, counts = torch.unique(tokens, return_counts=True)
    top = torch.topk(counts, min(k, counts.numel()))
    common = [int(uniq[i]) for i in top.indices]
    rare = uniq[counts == 1].tolist()
    if len(rare) > 2:
        msg = "many rare"
    elif rare:
        msg = f"rare={rare}"
    else:
        msg = "no rare"
    return len(uniq), common, top.values.tolist(), msg


def pick(scores, k):
    vals, idx = scores.topk(k, largest=False, sorted=True)
    chosen = []
    for v, i in zip(vals.tolist(), idx.tolist()):
        if v < 0:
            chosen.append(("neg", i))
        else:
            chosen.append(("pos", i))
    return chosen, scores.sort(descending=True).indices[:2].tolist()


def main():
    torch.set_num_threads(1)
    for toks in ([3, 1, 3, 3, 2, 7, 1], [5, 5, 5], [1, 2, 3, 4, 9, 9]):
        print(vocab_stats(torch.tensor(toks), 2))
    print(pick(torch.tensor([0.5, -1.0, 2.0, -0.25, 3.0]), 3))
    print(pick(torch.tensor([4.0, 1.0, 2.0]), 1))
