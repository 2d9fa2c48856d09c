import torch

LOG = []

def f(x, idx):
    try:
        y = x[idx]
        LOG.append("got")
        return y * 2
    except IndexError:
        LOG.append("idx")
        raise
    finally:
        LOG.append("finally")
        if idx.numel() > 1:
            return x.sum()

def main():
    torch.set_num_threads(1)
    x = torch.arange(3.0)
    for idx in (torch.tensor([1]), torch.tensor([9]), torch.tensor([0, 9]), torch.tensor([2, 0])):
        try:
            r = f(x, idx).tolist()
        except IndexError:
            r = "IndexError"
        print(r, LOG)
        LOG.clear()
