import warnings

import torch


def normalize(x, log):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = torch.nn.functional.softmax(x)
        z = torch.tensor(y)
        if x.sum() < 0:
            warnings.warn(f"negative sum {x.sum().item():.2f}", RuntimeWarning)
    for w in caught:
        log.append((w.category.__name__, str(w.message).split(".")[0][:40]))
    return z, len(caught)


def main():
    torch.set_num_threads(1)
    log = []
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([-3.0, 1.0]), torch.tensor([[0.5, -1.0]])):
        z, n = normalize(x, log)
        print([round(v, 4) for v in z.flatten().tolist()], n)
    for entry in log:
        print(entry)
