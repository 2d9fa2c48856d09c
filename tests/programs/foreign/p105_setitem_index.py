import torch

def put(buf, idx, val):
    buf[idx] = val
    buf[buf < 0] = 0
    return buf.tolist()

def main():
    torch.set_num_threads(1)
    b = torch.zeros(5)
    for idx, val in ((1, 2.0), ([0, 3], -1.0), (torch.tensor([True, False, True, False, False]), 7.0), (slice(1, 4), torch.tensor([1.0, -2.0, 3.0])), (torch.tensor(4), 5)):
        print(put(b, idx, val))
