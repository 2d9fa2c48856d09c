"""Exactness of calls: arguments whose ``__getattr__`` must not run, function defaults
replaced between calls."""
from __future__ import annotations

import pytest
import torch

from tests.capture.harness import Harness


class AttrDict(dict):
    """A dict whose attributes are its items: a KeyError, not an AttributeError, for a missing one."""

    def __getattr__(self, k):
        return self[k]


def test_dict_subclass_with_getattr_is_not_probed():
    def f(x, d):
        return x + d["a"]

    h = Harness()
    c = h.compile(f)
    x = torch.randn(2)
    d = AttrDict(a=torch.ones(2))
    torch.testing.assert_close(c(x, d), f(x, d))  # used to be an internal KeyError


def test_dict_subclass_with_getattr_through_compile():
    import autograph
    from autograph.runtime import stats

    def f_attrdict(x, d):
        return x + d["a"]

    c = autograph.compile(f_attrdict, backend="eager")
    x = torch.randn(2)
    d = AttrDict(a=torch.ones(2))
    torch.testing.assert_close(c(x, d), f_attrdict(x, d))
    errors = [e for s in stats.all_stats() if s.qualname.endswith("f_attrdict") for e in s.errors]
    assert not errors, errors


def hasattr_on_an_attr_dict(x, d):
    try:
        return x + hasattr(d, "q")
    except KeyError:  # hasattr only swallows AttributeError: the KeyError of __getattr__ escapes
        return x - 1


@pytest.mark.parametrize("items", [{}, {"q": 1}])
def test_dict_subclass_getattr_runs_as_python_code(items):
    """A dict subclass's lookup is the generic one (its ``__getattribute__`` is dict's slot, not
    object's): its Python ``__getattr__`` is interpreted, never run by capture itself (whose
    KeyError was an internal capture error)."""
    import autograph
    from autograph.runtime import stats

    def f_hasattr_attrdict(x, d):
        return hasattr_on_an_attr_dict(x, d)

    c = autograph.compile(f_hasattr_attrdict, backend="eager")
    x = torch.randn(2)
    for _ in range(2):
        torch.testing.assert_close(c(x, AttrDict(items)), hasattr_on_an_attr_dict(x, AttrDict(items)))
    errors = [e for s in stats.all_stats() if s.qualname.endswith("f_hasattr_attrdict") for e in s.errors]
    assert not errors, errors


def test_positional_defaults_replaced_after_the_first_call():
    def f(x, k=1):
        return x + k

    h = Harness()
    c = h.compile(f)
    x = torch.zeros(2)
    torch.testing.assert_close(c(x), f(x))
    f.__defaults__ = (5,)
    torch.testing.assert_close(c(x), f(x))


def test_defaults_removed_after_the_first_call_raise_like_python():
    import autograph
    from autograph.runtime import stats

    def f_nodefault(x, k=1):
        return x + k

    c = autograph.compile(f_nodefault, backend="eager")
    x = torch.zeros(2)
    torch.testing.assert_close(c(x), f_nodefault(x))
    f_nodefault.__defaults__ = None
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        c(x)
    errors = [e for s in stats.all_stats() if s.qualname.endswith("f_nodefault") for e in s.errors]
    assert not errors, errors


def test_keyword_defaults_replaced_after_the_first_call():
    def f(x, *, k=1):
        return x + k

    h = Harness()
    c = h.compile(f)
    x = torch.zeros(2)
    torch.testing.assert_close(c(x), f(x))
    f.__kwdefaults__ = {"k": 7}
    torch.testing.assert_close(c(x), f(x))


def test_keyword_defaults_changed_in_place_after_the_first_call():
    """``__kwdefaults__`` is a dict: an item set in place keeps the dict's identity."""
    def f(x, *, k=1):
        return x * k

    h = Harness()
    c = h.compile(f)
    x = torch.ones(2)
    torch.testing.assert_close(c(x), f(x))
    f.__kwdefaults__["k"] = 7
    torch.testing.assert_close(c(x), f(x))


def test_callee_keyword_defaults_changed_in_place_after_the_first_call():
    def g(y, *, k=1):
        return y * k

    def f(x):
        return g(x) + 1

    h = Harness()
    c = h.compile(f)
    x = torch.ones(2)
    torch.testing.assert_close(c(x), f(x))
    g.__kwdefaults__["k"] = 7
    torch.testing.assert_close(c(x), f(x))


def test_callee_defaults_replaced_after_the_first_call():
    def g(y, k=1):
        return y * k

    def f(x):
        return g(x) + 1

    h = Harness()
    c = h.compile(f)
    x = torch.ones(2)
    torch.testing.assert_close(c(x), f(x))
    g.__defaults__ = (4,)
    torch.testing.assert_close(c(x), f(x))


def test_isinstance_of_a_module_parameter_and_buffer():
    """``nn.Module.get_parameter`` checks ``isinstance(p, nn.Parameter)``: capture answered False."""
    m = torch.nn.Linear(2, 2)
    m.register_buffer("running", torch.zeros(2))

    def f(x, mod):
        p, b = mod.weight, mod.running
        return x + 1, isinstance(p, torch.nn.Parameter), type(p) is torch.nn.Parameter, \
            isinstance(b, torch.nn.Parameter), isinstance(x, torch.nn.Parameter)

    c = Harness().compile(f)
    x = torch.zeros(2)
    assert c(x, m)[1:] == f(x, m)[1:] == (True, True, False, False)
    assert c(m.weight, m)[1:] == f(m.weight, m)[1:]  # a Parameter passed in is one too


def test_get_parameter_of_a_module():
    m = torch.nn.Sequential(torch.nn.Linear(2, 2))

    def f(x, mod):
        return x + mod.get_parameter("0.weight").sum()

    c = Harness().compile(f)
    x = torch.zeros(2)
    torch.testing.assert_close(c(x, m), f(x, m))


class Scale:
    def __init__(self, k):
        self.k = k


def self_tensor_across_a_break(self, x):
    y = self + x
    print("break")
    return y * 2 + self


def self_object_across_a_break(self, x):
    y = x * self.k
    print("break")
    return y + self.k


@pytest.mark.parametrize("fn, make", [
    (self_tensor_across_a_break, lambda: (torch.randn(3), torch.randn(3))),
    (self_object_across_a_break, lambda: (Scale(3.0), torch.randn(3))),
])
def test_first_parameter_named_self_across_a_graph_break(fn, make, capsys):
    """A plain function whose first parameter is called ``self``: neither the graph's nor the
    resume function's generated code may take it for its own ``self``."""
    from tests.capture.checks import check
    h = check(fn, make, calls=2)
    assert h.breaks and len(h.backend.graphs) >= 2


def imports_used_after_a_break(x):
    import numpy as np
    import os.path as osp
    from math import sqrt
    y = x + 1
    print("break")
    return y + torch.from_numpy(np.ones(3, dtype="float32")) * sqrt(4.0) + len(osp.join("a", "b"))


def test_modules_imported_in_the_function_are_used_after_a_graph_break(capsys):
    """Names bound by ``import`` inside the function are locals the resume code must receive."""
    from tests.capture.checks import check
    h = check(imports_used_after_a_break, lambda: (torch.randn(3),), calls=2)
    assert h.breaks
