import random, torch

def augment(x, rng):
    if rng.random() < 0.5:
        x = x.flip(0)
    k = rng.randint(1, 3)
    noise = torch.randn(x.shape) * 0.01
    return x.roll(k), noise.abs().sum().item() > 0

def main():
    global i, ok, rng, y
    rng = random.Random(10)
    torch.manual_seed(10)
    for i in range(5):
        y, ok = augment(torch.arange(6.0), rng)
        print(i, y.tolist(), ok, rng.random().__round__(6))
    random.seed(3)
    print(random.random())
