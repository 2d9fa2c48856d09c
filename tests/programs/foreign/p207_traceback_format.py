import sys
import traceback

import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)

    def forward(self, x):
        h = self.lin(x)
        print("h", tuple(h.shape))
        return self.head(h)

    def head(self, h):
        return h @ torch.ones(3)


def safe_forward(model, x):
    try:
        return model(x).tolist()
    except RuntimeError:
        etype, value, tb = sys.exc_info()
        frames = traceback.extract_tb(tb)
        lines = [f"{f.name}:{f.line}" for f in frames if f.filename == __file__]
        return etype.__name__, str(value).split("(")[0], lines


def main():
    torch.manual_seed(36)
    model = Model()
    for x in (torch.ones(1, 3), torch.ones(2, 3)):
        print(safe_forward(model, x))
    try:
        model(torch.ones(2, 4))
    except RuntimeError as e:
        text = traceback.format_exception_only(type(e), e)
        names = [f.name for f in traceback.extract_tb(e.__traceback__)]
        print(text[-1].strip()[:60], names.count("forward"), names[-1])
