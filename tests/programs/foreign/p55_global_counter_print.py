import torch

COUNT = 0
HISTORY = []

def step(x):
    global COUNT
    COUNT += 1
    y = x * COUNT
    print("step", COUNT, y)
    HISTORY.append(y)
    y.add_(1)
    print("after", y.sum())
    return y

def main():
    torch.set_num_threads(1)
    for i in range(4):
        step(torch.ones(2) * i)
    print([h.tolist() for h in HISTORY], COUNT)
