import contextlib, torch

LOG = []

def f(x, n, bad):
    with contextlib.ExitStack() as st:
        for k in range(n):
            st.callback(LOG.append, f"cb{k}")
        with contextlib.suppress(KeyError, ZeroDivisionError):
            y = x * 2
            if bad == "key":
                {}["k"]
            if bad == "zero":
                1 / 0
            y = y + 1
    return y.tolist(), list(LOG)

def main():
    torch.set_num_threads(1)
    for i, (n, bad) in enumerate(((1, None), (2, "key"), (0, "zero"), (3, None))):
        print(i, f(torch.ones(2), n, bad))
        LOG.clear()
