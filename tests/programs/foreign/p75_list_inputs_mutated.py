import torch

def consume(items, out):
    total = torch.zeros(2)
    while items:
        t = items.pop()
        if t is None:
            out.append("none")
            continue
        total += t
        out.append(len(items))
    return total

def main():
    torch.set_num_threads(1)
    out = []
    base = [torch.ones(2), None, torch.full((2,), 3.0)]
    for i in range(4):
        items = list(base[: i + 1]) + [torch.ones(2) * i]
        t = consume(items, out)
        print(i, t.tolist(), items, out)
