import dataclasses, torch

@dataclasses.dataclass(frozen=True)
class Cfg:
    scale: float
    name: str = "cfg"
    tags: tuple = ()

def apply(x, cfg):
    y = x * cfg.scale
    try:
        cfg.scale = 3.0
    except dataclasses.FrozenInstanceError as e:
        msg = type(e).__name__
    return y, msg, hash(cfg) == hash(Cfg(cfg.scale, cfg.name, cfg.tags)), repr(cfg), f"{cfg.name}:{len(cfg.tags)}"

def main():
    torch.set_num_threads(1)
    cfg = Cfg(2.0)
    for i in range(4):
        if i == 2:
            cfg = dataclasses.replace(cfg, scale=-1.5, tags=("a", "b"))
        y, msg, h, r, s = apply(torch.arange(3.0), cfg)
        print(i, y.tolist(), msg, h, r, s)
