import torch, warnings, contextlib, io

def risky(x):
    if (x < 0).any():
        warnings.warn("negative input clipped", UserWarning)
        x = x.clamp(min=0)
    return x.sqrt()

def run(x):
    buf = io.StringIO()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(buf):
            y = risky(x)
            print("sum", round(y.sum().item(), 4))
    return y, [str(i.message) for i in w], buf.getvalue()

def main():
    global i, msgs, out, y
    torch.manual_seed(8)
    for i in range(3):
        y, msgs, out = run(torch.randn(4) + i)
        print(i, msgs, repr(out))
