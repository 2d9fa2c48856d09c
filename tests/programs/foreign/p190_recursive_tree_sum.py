import torch


def tree_map(fn, tree):
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(fn, v) for v in tree)
    if isinstance(tree, torch.Tensor):
        return fn(tree)
    return tree


def tree_reduce(tree):
    leaves = []
    tree_map(lambda t: leaves.append(t) or t, tree)
    return sum(t.sum() for t in leaves), len(leaves)


def main():
    torch.set_num_threads(1)
    tree = {"w": [torch.ones(2), (torch.arange(3.0), "skip")], "b": {"x": torch.tensor(5.0), "n": 3}}
    doubled = tree_map(lambda t: t * 2, tree)
    total, n = tree_reduce(doubled)
    print(total.item(), n, doubled["w"][1][1], type(doubled["w"][1]).__name__)
    halved = tree_map(lambda t: (t / 2).round(), doubled)
    print(tree_reduce(halved)[0].item(), halved["b"]["x"].item())
