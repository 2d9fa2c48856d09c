import torch


def accumulate(x, acc=torch.zeros(2), history=[]):
    acc += x
    history.append(acc.sum().item())
    return acc, len(history)


def ema(x, state={"avg": None}, beta=0.5):
    if state["avg"] is None:
        state["avg"] = x.clone()
    else:
        state["avg"].mul_(beta).add_(x * (1 - beta))
    return state["avg"]


def main():
    torch.set_num_threads(1)
    for i in range(3):
        acc, n = accumulate(torch.full((2,), float(i + 1)))
        print(acc.tolist(), n)
    mine = torch.ones(2)
    print(accumulate(torch.ones(2), mine)[0].tolist(), mine.tolist(), accumulate.__defaults__[0].tolist())
    for v in (2.0, 4.0, 8.0):
        a = ema(torch.tensor([v, -v]))
        print(a.tolist())
    print(ema.__defaults__[0]["avg"].tolist(), a is ema.__defaults__[0]["avg"])
