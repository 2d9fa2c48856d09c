"""``torch.vmap(f)(*tensors)`` with ``f`` independent of the call (a torch function, a module-level
function, a function made in the compiled code without cells or defaults) is one graph node
calling the real transform (values/func_transforms.py): values, in-place effects and the identity
of results that are their arguments are eager's. A closure over this call's values stays a break."""
from __future__ import annotations

import torch

import autograph
from autograph.runtime import stats


class Counter:
    def __init__(self):
        self.frames = 0

    def __call__(self, gm, example_inputs):
        self.frames += 1
        return gm.forward


def _compile(fn, **kw):
    autograph.reset()
    counter = Counter()
    return autograph.compile(fn, backend=counter, **kw), counter


def _fallbacks():
    return [s.errors for s in stats.all_stats() if s.errors]


def scale_rows(row):
    return row * row.sum()


def vmapped_pure(x):
    return torch.vmap(torch.sin)(x) + 1, torch.vmap(scale_rows, in_dims=1, out_dims=1)(x)


def test_vmap_of_torch_and_module_functions_is_one_graph():
    f, counter = _compile(vmapped_pure, fullgraph=True)
    x = torch.randn(3, 4)
    for got, ref in zip(f(x), vmapped_pure(x)):
        assert torch.equal(got, ref)
    assert counter.frames == 1 and _fallbacks() == []


def vmapped_in_place(x):
    y = torch.vmap(torch.Tensor.acos_)(x)
    return y is x


def test_vmap_of_an_in_place_method_returns_and_mutates_its_argument():
    f, counter = _compile(vmapped_in_place, fullgraph=True)
    x, ref = torch.rand(4, 1), None
    ref = x.clone()
    assert f(x) is vmapped_in_place(ref)
    assert torch.equal(x, ref)  # acos_ ran on the caller's tensor
    assert counter.frames == 1 and _fallbacks() == []


def vmapped_nested_function(y, z):
    a, b = y.clone(), z.clone()

    def both(a, b):
        return a.acos_(), b.acos_()
    c, d = torch.vmap(both)(a, b)
    return a is c, b is d, c is d, c, d


def test_vmap_of_a_function_made_in_the_call():
    f, counter = _compile(vmapped_nested_function, fullgraph=True)
    y, z = torch.rand(4, 1), torch.rand(4, 1)
    got, ref = f(y, z), vmapped_nested_function(y, z)
    assert got[:3] == ref[:3] and torch.equal(got[3], ref[3]) and torch.equal(got[4], ref[4])
    assert counter.frames == 1 and _fallbacks() == []


def vmapped_closure(x, w):
    return torch.vmap(lambda row: row @ w)(x)


def test_vmap_of_a_closure_uses_this_calls_cells():
    f, _ = _compile(vmapped_closure)
    x = torch.randn(3, 4)
    for _ in range(2):
        w = torch.randn(4, 2)
        assert torch.allclose(f(x, w), vmapped_closure(x, w))
