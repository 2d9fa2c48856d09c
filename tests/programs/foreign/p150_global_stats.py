import torch

STEP = 0
HISTORY = []
BEST = {"loss": None, "step": -1}


def record(loss):
    global STEP
    STEP += 1
    value = loss.item()
    HISTORY.append(round(value, 4))
    if BEST["loss"] is None or value < BEST["loss"]:
        BEST["loss"] = value
        BEST["step"] = STEP
    return STEP


def step(w, x):
    global STEP
    loss = (x * w).sum() ** 2
    s = record(loss)
    if s % 3 == 0:
        STEP += 10
    return loss * 0.5, s


def main():
    torch.set_num_threads(1)
    w = torch.tensor([0.5, -0.25])
    for i in range(5):
        loss, s = step(w, torch.tensor([1.0, float(i)]))
        print(i, round(loss.item(), 4), s, STEP)
    print(HISTORY, BEST["step"], round(BEST["loss"], 4))
