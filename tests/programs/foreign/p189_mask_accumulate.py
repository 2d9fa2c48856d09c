import torch


def per_class_accuracy(logits, labels, n_classes):
    pred = logits.argmax(-1)
    out = {}
    for c in range(n_classes):
        mask = labels == c
        if not mask.any():
            out[c] = None
            continue
        out[c] = round((pred[mask] == c).float().mean().item(), 3)
    conf = torch.zeros(n_classes, n_classes, dtype=torch.long)
    for t, p in zip(labels.tolist(), pred.tolist()):
        conf[t, p] += 1
    return out, conf.tolist()


def main():
    torch.manual_seed(31)
    logits = torch.randn(10, 3)
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 0, 1, 1])
    print(per_class_accuracy(logits, labels, 3))
    print(per_class_accuracy(logits[:4], labels[:4] % 2, 3))
