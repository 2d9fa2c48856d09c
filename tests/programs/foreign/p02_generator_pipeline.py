import torch, itertools

def batches(data, size):
    it = iter(data)
    while True:
        chunk = list(itertools.islice(it, size))
        if not chunk:
            return
        yield torch.stack(chunk)

def score(batch, w):
    logits = batch @ w
    probs = logits.softmax(-1)
    top = probs.argmax(-1)
    return [int(t) for t in top], probs.max().item()

def main():
    global _, b, data, i, l, labels, m, seen, w
    torch.manual_seed(0)
    w = torch.randn(4, 3)
    data = [torch.randn(4) for _ in range(11)]
    seen = {}
    for i, b in enumerate(batches(data, 3)):
        labels, m = score(b, w)
        for l in labels:
            seen[l] = seen.get(l, 0) + 1
        print(i, labels, f"{m:.5f}")
    print(sorted(seen.items()))
