import numpy as np, torch

def mix(x, arr, scale):
    a = torch.from_numpy(arr)
    y = x + a * scale
    n = y.numpy() if not y.requires_grad else y.detach().numpy()
    arr += 1
    s = np.float64(n.sum())
    return y, type(s).__name__, float(s), n.dtype.name, arr.tolist(), int(np.argmax(n))

def main():
    torch.set_num_threads(1)
    arr = np.array([1.0, 2.0, 3.0])
    for i, sc in enumerate((1.0, 2, np.float32(0.5), -1)):
        y, tn, s, dn, al, am = mix(torch.ones(3, dtype=torch.float64), arr, sc)
        print(i, y.tolist(), tn, s, dn, al, am)
