import torch


def checked_norm(x, eps):
    assert x.dim() == 2, f"expected 2D, got {x.dim()}D"
    n = x.norm(dim=1, keepdim=True)
    assert (n > eps).all(), f"zero row at {int((n <= eps).nonzero()[0, 0])}"
    return x / n


def main():
    torch.set_num_threads(1)
    for x in (torch.tensor([[3.0, 4.0], [1.0, 0.0]]), torch.ones(3), torch.tensor([[1.0, 1.0], [0.0, 0.0]])):
        try:
            print(checked_norm(x, 1e-6).tolist())
        except AssertionError as e:
            print("AssertionError", e)
