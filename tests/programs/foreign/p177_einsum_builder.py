import torch


def contract(tensors, out):
    letters = "abcdefgh"
    subs = []
    pos = 0
    for t in tensors:
        subs.append(letters[pos:pos + t.dim()])
        pos += t.dim() - 1
    eq = ",".join(subs) + "->" + out
    return eq, torch.einsum(eq, *tensors)


def main():
    torch.manual_seed(25)
    a, b, c = torch.randn(2, 3), torch.randn(3, 4), torch.randn(4, 2)
    for ts, out in (([a, b], "ac"), ([a, b, c], "ad"), ([a, b, c], "a"), ([b], "ab")):
        eq, r = contract(ts, out)
        print(eq, tuple(r.shape), round(r.sum().item(), 4))
