import torch, warnings

def check(x):
    if x.min().item() < 0:
        warnings.warn("negative values", RuntimeWarning)
    warnings.warn("always called", UserWarning)
    return x.abs()

def main():
    torch.set_num_threads(1)
    modes = ["error", "ignore", "always", "default"]
    for i, m in enumerate(modes):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter(m)
            try:
                y = check(torch.tensor([-1.0, 2.0]) * (1 if i % 2 == 0 else -1))
                print(i, m, y.tolist(), [str(r.message) for r in rec])
            except Warning as e:
                print(i, m, "raised", type(e).__name__, e)
    print(len(warnings.filters) > 0)
