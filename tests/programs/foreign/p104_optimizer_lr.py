import torch

def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    return round(loss.item(), 5), opt.param_groups[0]["lr"]

def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(4, 2), torch.randn(4, 1)
    for i in range(5):
        if i == 2:
            opt.param_groups[0]["lr"] = 0.5
        if i == 3:
            opt.param_groups[0]["momentum"] = 0.9
        print(i, train_step(model, opt, x, y), [round(v, 5) for v in model.weight.flatten().tolist()])
