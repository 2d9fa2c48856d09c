"""``torch.vmap(f)(*tensors)`` with ``f`` independent of the call (a torch function, a module-level
function, a function made in the compiled code, also a closure over tensors) is one graph node
calling the real transform (families/func_transforms.py): values, in-place effects and the identity
of results that are their arguments are eager's; a closure's cells are this call's. A closure
writing its cells stays a break."""
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


def vmapped_closure(x, w, k):
    return torch.vmap(lambda row: row @ w * k)(x)


def test_vmap_of_a_closure_uses_this_calls_cells():
    f, counter = _compile(vmapped_closure, fullgraph=True)
    x = torch.randn(3, 4)
    for _ in range(3):
        w = torch.randn(4, 2)
        assert torch.allclose(f(x, w, 3), vmapped_closure(x, w, 3))
    assert counter.frames == 1 and _fallbacks() == []


def closure_cell_mutated_between_calls(x, w):
    def scaled(row):
        return row * w.sum()
    before = torch.vmap(scaled, in_dims=1, out_dims=1)(x)
    w.add_(1)  # the second call reads the mutated tensor, as in Python
    return before, torch.vmap(scaled, in_dims=1, out_dims=1)(x)


def test_vmap_of_a_closure_reads_its_cells_when_called():
    f, counter = _compile(closure_cell_mutated_between_calls, fullgraph=True)
    x, w = torch.randn(3, 4), torch.randn(3)
    got, ref = f(x, w.clone()), closure_cell_mutated_between_calls(x, w.clone())
    assert torch.allclose(got[0], ref[0]) and torch.allclose(got[1], ref[1])
    assert counter.frames == 1 and _fallbacks() == []


def closure_writing_its_cell(x):
    n = 0

    def count(row):
        nonlocal n
        n += 1
        return row * 2
    out = torch.vmap(count)(x)
    return out, n


def test_vmap_of_a_closure_writing_its_cells_runs_in_python():
    f, _ = _compile(closure_writing_its_cell)
    x = torch.randn(3, 2)
    got, ref = f(x), closure_writing_its_cell(x)
    assert torch.equal(got[0], ref[0]) and got[1] == ref[1]
