import torch

def f(x, idx, shape, other):
    out = []
    for op in (lambda: x[idx], lambda: x.view(shape), lambda: torch.cat([x, other]), lambda: (x + other),
               lambda: x.reshape(shape).sum(5), lambda: torch.gather(x, 0, idx if torch.is_tensor(idx) else torch.tensor([idx]))):
        try:
            r = op()
            out.append(("ok", tuple(r.shape)))
        except (IndexError, RuntimeError, ValueError, TypeError) as e:
            out.append((type(e).__name__, str(e).split("\n")[0][:90]))
    return out

def main():
    torch.set_num_threads(1)
    for idx, shape, other in ((torch.tensor([1]), (2, 3), torch.ones(6)), (torch.tensor([9]), (4, 2), torch.ones(2, 3)),
                              (2, (-1, 4), torch.ones(5)), (torch.tensor([-7]), (6,), torch.ones(1))):
        for row in f(torch.arange(6.0), idx, shape, other):
            print(row)
