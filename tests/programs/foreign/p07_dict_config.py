import torch, copy

DEFAULTS = {"act": "relu", "scale": 1.0, "layers": [4, 4]}

def build(cfg):
    cfg = {**DEFAULTS, **cfg}
    acts = {"relu": torch.relu, "tanh": torch.tanh, "gelu": torch.nn.functional.gelu}
    fn = acts[cfg["act"]]
    def run(x):
        for width in cfg["layers"]:
            x = fn(x[..., :width] * cfg["scale"])
        return x
    return run, cfg

def main():
    global cfg, full, run, x, y
    torch.manual_seed(4)
    x = torch.randn(2, 6)
    for cfg in [{}, {"act": "tanh"}, {"scale": 2.5, "layers": [5, 3]}, {"act": "gelu", "layers": []}]:
        run, full = build(copy.deepcopy(cfg))
        y = run(x)
        print(sorted(full.items()), tuple(y.shape), round(y.sum().item(), 5))
