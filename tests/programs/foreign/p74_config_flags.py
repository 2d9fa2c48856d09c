import torch

CONFIG = {"debug": False, "eps": 1e-3, "mode": "mean"}

def norm(x):
    if CONFIG["debug"]:
        print("norm input", x.shape, x.dtype)
    red = getattr(x, CONFIG["mode"])()
    return (x - red) / (x.std() + CONFIG["eps"])

def main():
    torch.set_num_threads(1)
    x = torch.tensor([1.0, 2.0, 4.0])
    for i in range(5):
        if i == 1:
            CONFIG["debug"] = True
        if i == 2:
            CONFIG["mode"] = "median"
        if i == 3:
            CONFIG["eps"] = 10.0
            CONFIG["debug"] = False
        if i == 4:
            CONFIG.pop("debug")
            CONFIG["debug"] = 1
        print(i, [round(v, 5) for v in norm(x).tolist()])
