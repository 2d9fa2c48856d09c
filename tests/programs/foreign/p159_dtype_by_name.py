import torch

CONFIG = {"dtype": "float64", "act": "gelu", "norm": "LayerNorm"}


def build(cfg, dim):
    dtype = getattr(torch, cfg["dtype"])
    act = getattr(torch.nn.functional, cfg["act"])
    norm = getattr(torch.nn, cfg["norm"])(dim).to(dtype)
    return dtype, act, norm


def forward(cfg, x):
    dtype, act, norm = build(cfg, x.shape[-1])
    y = act(norm(x.to(dtype)))
    return str(y.dtype).replace("torch.", ""), [round(v, 4) for v in y.flatten().tolist()], type(norm).__name__


def main():
    torch.manual_seed(18)
    x = torch.randn(2, 3)
    print(forward(CONFIG, x))
    CONFIG["act"] = "silu"
    print(forward(CONFIG, x))
    print(forward({"dtype": "float32", "act": "relu", "norm": "RMSNorm"}, x))
    try:
        forward({"dtype": "float99", "act": "relu", "norm": "LayerNorm"}, x)
    except AttributeError as e:
        print("AttributeError", e)
