import torch, sys, io

def capture_out(x, idx):
    old = sys.stdout
    buf = io.StringIO()
    sys.stdout = buf
    try:
        print("computing")
        y = x[idx] * 2
        print("done", y.tolist())
    finally:
        sys.stdout = old
    return y, buf.getvalue()

def main():
    torch.set_num_threads(1)
    x = torch.arange(3.0)
    for idx in (torch.tensor([0]), torch.tensor([5]), torch.tensor([2]), torch.tensor([1, 2])):
        try:
            y, s = capture_out(x, idx)
            print("ok", y.tolist(), repr(s))
        except IndexError:
            print("IndexError", sys.stdout is sys.__stdout__)
