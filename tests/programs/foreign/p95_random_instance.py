import random, torch

def shuffle_pick(rng, xs):
    idx = list(range(len(xs)))
    rng.shuffle(idx)
    k = rng.randint(0, len(xs) - 1)
    return torch.stack([xs[i] for i in idx]).sum(0).tolist(), idx, k, rng.random()

def main():
    torch.set_num_threads(1)
    rng = random.Random(5)
    for i in range(4):
        if i == 2:
            rng.seed(1)
        print(i, shuffle_pick(rng, [torch.ones(2) * j for j in range(3 + i % 2)]))
