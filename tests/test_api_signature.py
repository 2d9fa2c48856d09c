"""``autograph.compile`` takes ``torch.compile``'s signature and any callable torch.compile takes."""
from __future__ import annotations

import functools
import warnings

import pytest
import torch
import torch.nn.functional as F

import autograph
from autograph.api import CompileArgumentWarning
from autograph.explain.report import report
from autograph.runtime.shim import Shim


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()
    yield
    autograph.reset()


def _stats(name: str):
    return next(f for f in report().functions if f.qualname == name or f.qualname.endswith("." + name))


def f(x, y):
    return x * y + 1


def test_builtin_is_one_graph_node():
    add = autograph.compile(torch.add)
    assert torch.equal(add(torch.ones(2), torch.ones(2)), torch.full((2,), 2.0))
    st = _stats("add")
    assert (st.captures, st.ops_in_graphs, st.eager_calls) == (1, 1, 0)


def test_c_function_with_keywords():
    one_hot = autograph.compile(F.one_hot)
    out = one_hot(torch.tensor([0, 2]), num_classes=3)
    assert torch.equal(out, F.one_hot(torch.tensor([0, 2]), num_classes=3))
    assert _stats("one_hot").captures == 1


def test_two_compiled_builtins_keep_their_own_statistics():
    add, mul = autograph.compile(torch.add), autograph.compile(torch.mul)
    add(torch.ones(2), torch.ones(2))
    mul(torch.ones(2), torch.ones(2))
    assert _stats("add").calls == 1 and _stats("mul").calls == 1


def test_partial_of_a_python_function():
    p = autograph.compile(functools.partial(f, y=torch.full((2,), 3.0)))
    assert isinstance(p, functools.partial) and isinstance(p.func, Shim)
    assert torch.equal(p(torch.ones(2)), torch.full((2,), 4.0))


def test_partial_of_a_builtin():
    p = autograph.compile(functools.partial(torch.add, alpha=2))
    assert torch.equal(p(torch.ones(2), torch.ones(2)), torch.full((2,), 3.0))


def test_already_compiled_is_not_wrapped_twice():
    cf = autograph.compile(f)
    assert autograph.compile(cf) is cf
    again = autograph.compile(cf, backend="eager")
    assert isinstance(again, Shim) and again.fn is f  # a shim over the function, not over the shim
    module = autograph.compile(torch.nn.Linear(2, 2))
    assert autograph.compile(module) is module


def test_callable_object():
    class Scale:
        def __call__(self, x):
            return x * 2

    compiled = autograph.compile(Scale())
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))
    assert _stats("Scale.__call__").captures == 1


def test_disable_returns_the_target():
    assert autograph.compile(f, disable=True) is f
    assert autograph.compile(disable=True)(f) is f


@pytest.mark.parametrize("kwargs, words", [({"mode": "max-autotune"}, "mode='max-autotune' is not applied"),
                                           ({"mode": "reduce-overhead"}, "no CUDA graphs"),
                                           ({"options": {"triton.cudagraphs": True}}, "options=['triton.cudagraphs']")])
def test_mode_and_options_are_accepted_with_a_warning(kwargs, words):
    with pytest.warns(CompileArgumentWarning, match=words.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        cf = autograph.compile(f, **kwargs)
    assert torch.equal(cf(torch.ones(1), torch.ones(1)), torch.full((1,), 2.0))


def test_default_mode_is_silent_and_bad_arguments_raise_as_in_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        autograph.compile(f, mode="default", dynamic=True, fullgraph=False, backend="eager")
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        autograph.compile(f, mode="fastest")
    with pytest.raises(RuntimeError, match="Either mode or options"):
        autograph.compile(f, mode="max-autotune", options={})


def test_op_overload_is_one_graph_node():
    op = autograph.compile(torch.ops.aten.add.Tensor)
    assert torch.equal(op(torch.ones(2), torch.ones(2)), torch.full((2,), 2.0))
    st = _stats("add.Tensor")
    assert (st.captures, st.ops_in_graphs) == (1, 1)


def test_a_torch_module_is_still_compiled_as_a_module():
    linear = torch.nn.Linear(2, 2)
    compiled = autograph.compile(linear)
    assert isinstance(compiled, torch.nn.Linear) and compiled.weight is linear.weight
