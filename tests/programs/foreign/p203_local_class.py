import torch


def make_layer(scale):
    class Layer:
        count = 0

        def __init__(self, w):
            self.w = w * scale
            Layer.count += 1

        def __call__(self, x):
            return x @ self.w

        def __repr__(self):
            return f"Layer(scale={scale}, n={Layer.count})"

    return Layer


def run(x, scale, n):
    Layer = make_layer(scale)
    layers = [Layer(torch.eye(2) + i) for i in range(n)]
    for layer in layers:
        x = layer(x)
    return x.tolist(), repr(layers[-1]), Layer.__name__, Layer.__qualname__


def main():
    torch.set_num_threads(1)
    x = torch.tensor([[1.0, 0.0]])
    print(run(x, 1.0, 2))
    print(run(x, 0.5, 3))
