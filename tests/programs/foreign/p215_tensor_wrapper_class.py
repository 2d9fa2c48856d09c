import functools

import torch


@functools.total_ordering
class Vec:
    def __init__(self, data):
        self.data = torch.as_tensor(data, dtype=torch.float32)

    def __add__(self, other):
        return Vec(self.data + (other.data if isinstance(other, Vec) else other))

    __radd__ = __add__

    def __mul__(self, k):
        return Vec(self.data * k)

    def __neg__(self):
        return Vec(-self.data)

    def __len__(self):
        return self.data.numel()

    def __getitem__(self, i):
        return self.data[i].item()

    def __iter__(self):
        return iter(self.data.tolist())

    def __eq__(self, other):
        return isinstance(other, Vec) and torch.equal(self.data, other.data)

    def __lt__(self, other):
        return self.norm() < other.norm()

    def __hash__(self):
        return hash(tuple(self))

    def __bool__(self):
        return bool(self.data.any())

    def __repr__(self):
        return f"Vec({[round(v, 3) for v in self]})"

    def norm(self):
        return self.data.norm().item()


def combine(vs):
    total = sum(vs, Vec([0, 0]))
    scaled = [v * 2 for v in vs if v]
    return total, sorted(vs), max(vs), len({*vs}), -total, list(total), total[1], scaled


def main():
    torch.set_num_threads(1)
    vs = [Vec([1, 2]), Vec([0, 0]), Vec([-3, 0.5]), Vec([1, 2])]
    for row in combine(vs):
        print(row)
    print(combine(vs[:2])[0], Vec([1, 1]) == Vec([1.0, 1.0]), Vec([1, 1]) <= Vec([0, 2]))
