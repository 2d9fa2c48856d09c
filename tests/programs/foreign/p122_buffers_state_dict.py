import torch
from torch import nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(2))
        self.w = nn.Parameter(torch.ones(2))
    def forward(self, x):
        if hasattr(self, "offset"):
            x = x + self.offset
        return x * self.scale * self.w

def main():
    torch.set_num_threads(1)
    m = M()
    x = torch.ones(2)
    for i in range(5):
        if i == 1:
            m.scale.fill_(3.0)
        if i == 2:
            m.register_buffer("offset", torch.tensor([1.0, -1.0]))
        if i == 3:
            m.load_state_dict({"scale": torch.zeros(2), "w": torch.full((2,), 2.0), "offset": torch.ones(2)})
        if i == 4:
            m.scale = torch.full((2,), 0.5)
        with torch.no_grad():
            print(i, m(x).tolist(), sorted(m.state_dict()))
