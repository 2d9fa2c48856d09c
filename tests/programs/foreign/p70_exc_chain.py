import torch

class ShapeError(ValueError):
    def __init__(self, msg, shape):
        super().__init__(msg)
        self.shape = shape

def check(x):
    if x.dim() != 2:
        raise ShapeError(f"bad dim {x.dim()}", tuple(x.shape))
    return x.sum(0)

def wrap(x):
    try:
        return check(x), None
    except ShapeError as e:
        try:
            raise RuntimeError("wrapped") from e
        except RuntimeError as r:
            return None, (str(r), type(r.__cause__).__name__, r.__cause__.shape, str(r.__context__), e.args)

def main():
    torch.set_num_threads(1)
    for x in (torch.ones(2, 2), torch.ones(3), torch.ones(1, 1, 1), torch.ones(1, 3)):
        a, b = wrap(x)
        print(None if a is None else a.tolist(), b)
