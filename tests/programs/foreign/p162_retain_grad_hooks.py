import torch


def forward(x, w, seen):
    h = x * w
    h.retain_grad()
    h.register_hook(lambda g: seen.append(round(g.sum().item(), 4)))
    out = (h.tanh() * 2).sum()
    return out, h


def main():
    torch.manual_seed(20)
    w = torch.randn(3, requires_grad=True)
    seen = []
    for step in range(3):
        x = torch.randn(3)
        out, h = forward(x, w, seen)
        out.backward(retain_graph=True)
        if step == 1:
            out.backward()
        print(step, round(out.item(), 4), [round(v, 4) for v in h.grad.tolist()],
              [round(v, 4) for v in w.grad.tolist()], h.is_leaf, h.requires_grad)
    print(seen)
    g, = torch.autograd.grad((w * 2).sum(), [w])
    unused = torch.autograd.grad((w * 2).sum(), [w, torch.ones(1, requires_grad=True)], allow_unused=True)
    print(g.tolist(), unused[1])
