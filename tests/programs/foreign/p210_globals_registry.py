import torch

ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh}
DEFAULT_SCALE = 2.0


def act_by_name(name):
    return globals()["ACTIVATIONS"][name]


def configure(scale):
    globals()["DEFAULT_SCALE"] = scale
    return sorted(k for k in globals() if k.isupper())


def apply(x, name, expr):
    y = act_by_name(name)(x) * DEFAULT_SCALE
    extra = eval(expr, {"torch": torch, "y": y})
    local = eval("y.sum() + DEFAULT_SCALE")
    return [round(v, 4) for v in extra.tolist()], round(local.item(), 4)


def main():
    torch.set_num_threads(1)
    x = torch.tensor([-1.0, 0.5, 2.0])
    print(apply(x, "relu", "y * 2"))
    print(configure(0.5), DEFAULT_SCALE)
    print(apply(x, "tanh", "torch.sigmoid(y)"))
    exec("LATE = 3", globals())
    print(apply(x * globals()["LATE"], "relu", "y - 1"))
