import torch


def predict(model, x):
    with torch.inference_mode():
        y = model(x)
        flags = (y.is_inference(), y.requires_grad, torch.is_inference_mode_enabled())
    return y, flags


def update(y):
    try:
        y.add_(1)
        return "ok"
    except RuntimeError as e:
        return str(e).split(".")[0]


def main():
    torch.manual_seed(22)
    model = torch.nn.Linear(3, 2)
    x = torch.randn(2, 3)
    y, flags = predict(model, x)
    print([round(v, 4) for v in y.flatten().tolist()], flags, torch.is_inference_mode_enabled())
    print(update(y))
    z = y.clone()
    print(z.is_inference(), update(z))
    out = model(x)
    print(out.requires_grad, out.is_inference())
