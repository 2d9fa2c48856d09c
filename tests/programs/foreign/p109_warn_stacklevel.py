import warnings, torch

def check(x):
    if x.sum() < 0:
        warnings.warn("negative", UserWarning, stacklevel=2)
    return x.abs()

def api(x):
    y = x * 2
    z = check(y)
    print("between")
    return check(z - 10)

def main():
    torch.set_num_threads(1)
    for i in range(4):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            r = api(torch.tensor([1.0, -3.0]) * (i - 1))
        print(i, r.tolist(), [(w.lineno, w.filename.rsplit("/", 1)[-1], str(w.message)) for w in rec])
