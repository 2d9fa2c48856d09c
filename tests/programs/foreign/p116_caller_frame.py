import sys, torch

def f(x, k):
    a = x * k
    return a, sys._getframe(1).f_code.co_name

def main():
    torch.set_num_threads(1)
    for k in (1, 2, 3, 4):
        a, caller = f(torch.ones(2), k)
        print(a.tolist(), caller)
