"""Module-list slices, functools.wraps decorators with **kwargs, real objects' Python-level
special methods, globals registries (families/module_slices.py, families/objects.py, interpreter)."""
from __future__ import annotations

import functools

import pytest

import torch
from torch import nn

from autograph.testing.compare import assert_same
from tests.capture.harness import Harness


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x, n):
        for layer in self.layers[:n]:
            x = layer(x)
        return x, len(self.layers[1:])


def test_module_list_slice():
    m = Stack()
    h = Harness()
    x = torch.randn(2, 4)
    assert_same(m(x, 2), h.compile(Stack.forward)(m, x, 2))
    assert not h.breaks


def returns_dict(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        as_tuple = kwargs.pop("as_tuple", False)
        out = func(self, *args, **kwargs)
        return (out,) if as_tuple else out
    return wrapper


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    @returns_dict
    def forward(self, x, scale=1.0):
        return self.lin(x) * scale


def test_wraps_decorator_binds_the_wrappers_own_signature_and_kwargs_are_local():
    m = Net()
    h = Harness()
    x = torch.randn(2, 3)
    out = h.compile(Net.forward)(m, x, as_tuple=True, scale=2.0)
    assert_same(m(x, as_tuple=True, scale=2.0), out)
    assert not h.breaks


class Registry:
    """A mapping with Python-level special methods (like transformers' attention-function tables)."""

    _global = {"double": lambda t: t * 2}

    def __init__(self):
        self._local = {}

    def __getitem__(self, key):
        if key in self._local:
            return self._local[key]
        return self._global[key]

    def __contains__(self, key):
        return key in self._local or key in self._global

    def __len__(self):
        return len(self._global) + len(self._local)


REGISTRY = Registry()


def test_real_object_getitem_contains_len_are_inlined():
    def f(a, name):
        if name in REGISTRY and len(REGISTRY) > 0:
            return REGISTRY[name](a)
        return a

    h = Harness()
    a = torch.randn(3)
    assert_same(f(a, "double"), h.compile(f)(a, "double"))
    assert not h.breaks


def test_isinstance_with_a_tuple_of_classes():
    def f(a, m):
        if isinstance(m, (nn.Linear, nn.Conv2d)):
            return m(a)
        return a

    lin = nn.Linear(3, 3)
    h = Harness()
    a = torch.randn(1, 3)
    assert_same(f(a, lin), h.compile(f)(a, lin))
    assert not h.breaks


class _Inner(nn.Module):
    def helper(self, x):
        return x + 1

    def forward(self, x):
        return self.helper(x) * 2


class _Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()

    def forward(self, x):
        return self.inner(x)


def _patch_class_forward(m):
    _Inner.forward = lambda self, x: x * 100


def _patch_class_helper(m):
    _Inner.helper = lambda self, x: x - 1


def _patch_instance_forward(m):
    m.inner.forward = lambda x: x * 7  # what hook libraries do (accelerate, peft)


def _patch_instance_helper(m):
    m.inner.helper = lambda x: x * 3


@pytest.mark.parametrize("patch", [_patch_class_forward, _patch_class_helper, _patch_instance_forward,
                                   _patch_instance_helper])
def test_patching_a_submodule_method_after_capture_recaptures(monkeypatch, patch):
    monkeypatch.setattr(_Inner, "forward", _Inner.forward)  # undone after the test
    monkeypatch.setattr(_Inner, "helper", _Inner.helper)
    h = Harness()
    model = _Outer()

    def step(m, x):
        return m(x) + 1

    f = h.compile(step)
    x = torch.ones(3)
    f(model, x)
    f(model, x)
    assert h.captures == 1
    patch(model)
    assert_same(f(model, x), step(model, x))
    after = h.captures
    assert after > 1, "the patch must fail a guard"
    assert_same(f(model, x), step(model, x))
    assert h.captures == after


class _Shifting(nn.Module):
    def __init__(self):
        super().__init__()
        self.shift = 3
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if x.shape[0] < 3:  # as Swin's set_shift_and_window_size does
            self.shift = 0
            self.window = x.shape[0]
        return self.lin(x) + self.shift


def test_constant_attribute_stores_on_a_module_are_replayed_after_the_graph():
    for n in (2, 4):
        h = Harness()
        compiled, eager = _Shifting(), _Shifting()
        eager.load_state_dict(compiled.state_dict())
        f = h.compile(lambda m, x: m(x))
        x = torch.randn(n, 4)
        assert_same(f(compiled, x), eager(x))
        assert vars(compiled).get("shift") == vars(eager).get("shift")
        assert vars(compiled).get("window") == vars(eager).get("window")
        assert not h.breaks, h.breaks


class WithStaticHelper(nn.Module):
    @staticmethod
    def scale(x):
        return x * 2

    def forward(self, x):
        return self.scale(x) + 1


def test_a_static_method_patched_on_the_module_class_recaptures():
    """``self.scale(x)`` of a staticmethod is guarded on the class's entry: replacing it on the
    class changes what the next call computes (it kept calling the old function)."""
    m = WithStaticHelper()
    h = Harness()
    f = h.compile(WithStaticHelper.forward)
    x = torch.ones(3)
    original = WithStaticHelper.__dict__["scale"]
    try:
        assert torch.equal(f(m, x), m(x))
        WithStaticHelper.scale = staticmethod(lambda x: x * 3)
        assert torch.equal(f(m, x), m(x)) and torch.equal(m(x), torch.full((3,), 4.0))
    finally:
        WithStaticHelper.scale = original
    assert torch.equal(f(m, x), m(x))
