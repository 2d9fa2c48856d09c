import os, torch

def act(x):
    mode = os.environ.get("ADVP_MODE", "relu")
    scale = float(os.environ.get("ADVP_SCALE", "1"))
    if mode == "relu":
        y = torch.relu(x)
    elif mode == "tanh":
        y = torch.tanh(x)
    else:
        y = x
    os.environ["ADVP_LAST"] = mode
    return (y * scale).tolist()

def main():
    torch.set_num_threads(1)
    x = torch.tensor([-1.0, 0.5])
    for i, (m, s) in enumerate(((None, None), ("tanh", None), ("id", "2"), (None, "3"))):
        for k, v in (("ADVP_MODE", m), ("ADVP_SCALE", s)):
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        print(i, [round(v, 5) for v in act(x)], os.environ["ADVP_LAST"])
