import torch
from torch import nn

def run(model, x):
    y = model(x)
    bn = model[1]
    return [round(v, 4) for v in y.flatten().tolist()], [round(v, 4) for v in bn.running_mean.tolist()], int(bn.num_batches_tracked), model.training

def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Dropout(0.5))
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    for i in range(5):
        if i == 2:
            model.eval()
        if i == 3:
            model.train()
            model[1].momentum = 0.5
        torch.manual_seed(i)
        print(i, run(model, x))
