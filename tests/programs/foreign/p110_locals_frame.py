import sys, inspect, torch

def f(x, k):
    a = x * k
    b = a + 1
    names = sorted(locals())
    print("here")
    c = b.sum()
    fr = sys._getframe()
    return c, names, sorted(locals()), fr.f_code.co_name, inspect.currentframe().f_code.co_name

def main():
    torch.set_num_threads(1)
    for k in (1, 2, 3, 4):
        c, *rest = f(torch.ones(2), k)
        print(c.item(), rest)
