import torch


def flatten_safe(x):
    info = [x.is_contiguous(), x.stride()]
    try:
        y = x.view(-1)
        how = "view"
    except RuntimeError as e:
        y = x.reshape(-1)
        how = "reshape:" + str(e)[:30]
    info.append(y.data_ptr() == x.data_ptr())
    return how, info, y.tolist()[:4]


def main():
    torch.set_num_threads(1)
    base = torch.arange(6.0).reshape(2, 3)
    for x in (base, base.t(), base[:, 1:], base.t().contiguous(), base.unsqueeze(0).expand(2, 2, 3)):
        print(flatten_safe(x))
