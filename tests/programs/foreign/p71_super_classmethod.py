import torch

class Parent:
    @classmethod
    def greet(cls):
        return cls.__name__
    def scale(self):
        return 1

class Child(Parent):
    def scale(self):
        return super().scale() + 1

class GrandChild(Child):
    def run(self, x):
        return x * self.scale(), super().greet(), type(self).greet()

def main():
    torch.set_num_threads(1)
    g = GrandChild()
    for i in range(4):
        if i == 2:
            Child.scale = lambda self: 10
        y, a, b = g.run(torch.ones(2) * i)
        print(i, y.tolist(), a, b)
