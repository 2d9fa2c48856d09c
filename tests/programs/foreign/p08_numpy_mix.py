import numpy as np, torch

def featurize(arr):
    t = torch.from_numpy(arr).float()
    feats = torch.stack([t.mean(0), t.std(0), t.max(0).values])
    ratio = np.float64(feats[0].sum().item()) / (np.abs(arr).sum() + 1)
    return feats.numpy().round(4), float(ratio)

def main():
    global a, f, i, r, rng
    rng = np.random.default_rng(5)
    for i in range(4):
        a = rng.standard_normal((5, 3))
        f, r = featurize(a)
        print(i, f.tolist(), round(r, 6), type(r).__name__)
