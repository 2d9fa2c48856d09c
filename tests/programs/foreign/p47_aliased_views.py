import torch

def update(buf, k):
    v = buf[1:]
    w = buf.view(-1)
    v.add_(k)
    w[0] = w[-1] * 2
    t = buf.t() if buf.dim() == 2 else buf
    t.mul_(-1) if k > 1 else None
    return buf.clone(), v.sum().item(), w.data_ptr() == buf.data_ptr()

def main():
    torch.set_num_threads(1)
    b = torch.arange(6.0).view(2, 3)
    for k in (1, 2, 1, 3):
        if k == 3:
            b = torch.arange(4.0)
        c, s, same = update(b, k)
        print(k, c.tolist(), s, same, b.tolist())
