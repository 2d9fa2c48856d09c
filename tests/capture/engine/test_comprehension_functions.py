"""A comprehension's own function (Python 3.11: ``<listcomp>``, ``<dictcomp>``, ``<genexpr>``)
takes its iterator as the parameter ``.0``, no identifier: the runtime shims it when it is
called after a graph break, and its binder, guards and entry name that parameter ``implicit0``
as ``inspect.signature`` does, while capture binds it to the code's local ``.0``."""
from __future__ import annotations

import types

import pytest
import torch

import autograph


def _comprehension_code(fn) -> types.CodeType:
    return next(c for c in fn.__code__.co_consts if isinstance(c, types.CodeType))


def _ranked(x, names):
    return [names[i] for i in x.argsort().tolist()]


def _doubled_items(x, n):
    return [(x * i).sum().item() + (x * i).max() for i in range(n)]


def _printed_then_kept(x):
    kept = [print("v", int(v)) or v * 2 for v in x.tolist()]
    return kept, [t + x.sum() for t in [x, x * 2] if t.sum() > 0]


def _dict_of_items(xs):
    return {i: (t.item(), t * 2) for i, t in enumerate(xs)}


def _brk(v):
    print(end="")
    return v


def _walrus_into_the_caller(x, k):
    out = [(y := _brk(v * k)) for v in x.tolist()]  # y: a cell of the caller the comprehension writes
    return out, y


def _closure_over_a_tensor(x, k):
    scale = x.mean() * k
    return {int(v): _brk(v) * scale for v in x.tolist()}


def _nested_with_a_filter(x, k):
    return [[_brk(a) * b for b in x.tolist() if b > _brk(0)] for a in range(k)]


def test_a_comprehension_parameter_is_named_as_inspect_names_it():
    from autograph.guards.check import GuardSet, parameter_name, signature_source
    fn = types.FunctionType(_comprehension_code(_dict_of_items), globals())
    params, names = signature_source(fn, {})
    assert params == "implicit0" and names == ["implicit0"]
    assert parameter_name(".0") == "implicit0" and parameter_name("x") == "x"
    assert GuardSet(fn, []).index_fn(iter([])) == -1


@pytest.mark.parametrize("fn,calls", [
    (_ranked, [(torch.tensor([3., 1, 2]), "abc"), (torch.tensor([1., 2, 3]), "abc"), (torch.tensor([2., 3, 1]), "xyz")]),
    (_doubled_items, [(torch.ones(2), 3), (torch.ones(2) * 2, 3), (torch.ones(3), 2)]),
    (_printed_then_kept, [(torch.ones(2),), (-torch.ones(2),), (torch.arange(3.0),)]),
    (_dict_of_items, [([torch.tensor(1.0), torch.tensor(2.0)],), ([torch.tensor(3.0)],)]),
    *[(fn, [(torch.tensor([1.0, 2.0]), 2), (torch.tensor([3.0, -1.0, 0.5]), 3), (torch.tensor([1.0, 2.0]), 1)])
      for fn in (_walrus_into_the_caller, _closure_over_a_tensor, _nested_with_a_filter)],
])
def test_comprehensions_after_a_break_compile_again_with_new_values(fn, calls, capsys):
    autograph.reset()
    compiled = autograph.compile(fn, backend="eager")
    for args in calls:
        want = repr(fn(*args))
        eager_printed = capsys.readouterr().out
        assert repr(compiled(*args)) == want
        assert capsys.readouterr().out == eager_printed
    autograph.reset()
