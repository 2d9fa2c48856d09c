import torch

def f(x, mode):
    out = []
    with torch.no_grad():
        a = x * 2
        out.append(a.requires_grad)
        with torch.enable_grad():
            b = x * 3
            out.append(b.requires_grad)
    if mode == "inf":
        with torch.inference_mode():
            c = x + 1
            out.append(c.is_inference())
    elif mode == "set":
        with torch.set_grad_enabled(False):
            c = x + 1
        out.append(c.requires_grad)
    else:
        c = x + 1
        out.append(c.requires_grad)
    out.append(torch.is_grad_enabled())
    return (a + b + c.clone()).sum().item(), out

def main():
    torch.set_num_threads(1)
    x = torch.ones(2, requires_grad=True)
    for m in ("inf", "set", "none", "inf"):
        print(m, f(x, m))
    with torch.no_grad():
        print("ng", f(x, "none"))
