"""Calls mymodels.toy_example four times; the fourth call has a new size (a recompile).

    AUTOGRAPH_PACKAGES=mymodels python -m autograph run --report examples/toy.py
"""
import torch

from mymodels.model import toy_example

torch.manual_seed(0)
for n in (10, 10, 10, 20):
    toy_example(torch.randn(n), -torch.ones(n))
print("done")
