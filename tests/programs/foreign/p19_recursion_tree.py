import torch

def tree_sum(node, depth=0):
    if isinstance(node, torch.Tensor):
        return node.sum() * (depth + 1)
    if isinstance(node, dict):
        return sum((tree_sum(v, depth + 1) for k, v in sorted(node.items())), torch.tensor(0.0))
    return sum((tree_sum(v, depth + 1) for v in node), torch.tensor(0.0))

def main():
    global i, tree
    torch.manual_seed(11)
    tree = {"a": [torch.ones(2), (torch.ones(3) * 2,)], "b": {"c": torch.arange(3.0)}}
    for i in range(3):
        print(i, tree_sum(tree).item())
        tree["b"]["d"] = [torch.full((2,), float(i))]
