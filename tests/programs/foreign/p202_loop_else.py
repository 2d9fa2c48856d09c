import torch


def find_first(rows, thr):
    for i, r in enumerate(rows):
        if r.max() > thr:
            found = i
            break
    else:
        found = None
    k, acc = 0, torch.zeros(())
    while k < len(rows):
        acc = acc + rows[k].sum()
        if acc > thr * 2:
            break
        k += 1
    else:
        k = -1
    return found, k, round(acc.item(), 3)


def main():
    torch.set_num_threads(1)
    rows = torch.tensor([[0.5, 1.0], [2.0, 0.1], [4.0, -1.0]])
    for thr in (0.75, 1.5, 3.0, 10.0):
        print(find_first(rows, thr))
