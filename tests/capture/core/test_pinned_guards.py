"""Values read without a source from the call (another module's globals, a callee's
defaults, class attributes, closure cells, module-level objects) are guarded through
``ObjectSource`` paths at their live location: ordinary guards the C fast path
evaluates, which hold while nothing changes and fail on exactly the change (an
object replaced by another of the same type included)."""
import importlib
import sys
import textwrap

import pytest
import torch

from autograph.guards import native
from autograph.guards.model import PYTHON
from tests.capture.harness import Harness

HELPER = '''
import torch

SCALE = 2.0

class Config:
    shift = 1.0

class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k

scaler = Scaler(3.0)

def make_adder(n):
    def add(x):
        return x + n
    return add

adder = make_adder(5.0)

class Model:
    def run(self, x, power=2):  # a method found on the class: its globals have no source
        y = (x * SCALE + Config.shift) ** power
        return adder(scaler.apply(y))

model = Model()
'''


@pytest.fixture
def helper(tmp_path, monkeypatch):
    (tmp_path / "_ag_pinned_helper.py").write_text(textwrap.dedent(HELPER))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("_ag_pinned_helper")
    yield module
    sys.modules.pop("_ag_pinned_helper", None)


def f(x, m):
    return m.run(x) - 1


def test_pinned_reads_become_native_guards(helper):
    h = Harness()
    compiled = h.compile(f)
    x = torch.randn(4)
    torch.testing.assert_close(compiled(x, helper.model), f(x, helper.model))
    guards = h.results[0].guards
    described = "\n".join(guards.describe())
    for text in ("_ag_pinned_helper.SCALE", "_ag_pinned_helper.Config.shift",
                 "Model.run.__defaults__[0]", "_ag_pinned_helper.adder.__closure__[0].cell_contents",
                 "_ag_pinned_helper.scaler.k"):
        assert text in described, described
    assert not [g for g in guards.guards if g.kind is PYTHON], described
    assert isinstance(native.plan_for(guards), tuple)  # the C path evaluates every guard


@pytest.mark.parametrize("change", [
    lambda m: setattr(m, "SCALE", 3.0),
    lambda m: setattr(m.Config, "shift", 2.0),
    lambda m: setattr(m.Model.run, "__defaults__", (3,)),
    lambda m: setattr(m, "adder", m.make_adder(7.0)),
    lambda m: setattr(m, "scaler", m.Scaler(4.0)),
    lambda m: setattr(m.scaler, "k", 5.0),
    lambda m: setattr(m.Model, "run", lambda self, x, power=2: x * 10),
])
def test_each_pinned_value_is_guarded(helper, change):
    h = Harness()
    compiled = h.compile(f)
    x = torch.randn(4)
    compiled(x, helper.model)
    compiled(x, helper.model)
    assert h.captures == 1, "a second identical call must hit the cache"
    change(helper)
    torch.testing.assert_close(compiled(x, helper.model), f(x, helper.model))
    assert h.captures == 2, "the change must fail a guard and recapture"
    compiled(x, helper.model)
    assert h.captures == 2


class _Base:
    @staticmethod
    def k(x):
        return x + 1

    def m(self, x):
        return x * 3


class _Sub(_Base):
    pass


@pytest.mark.parametrize("shadow", [
    lambda: setattr(_Sub, "k", staticmethod(lambda x: x + 100)),
    lambda: setattr(_Sub, "m", lambda self, x: x * 300),
])
def test_a_method_shadowed_in_a_subclass_after_capture_recaptures(shadow):
    """An object made inside the function has no source: its methods are guarded through the
    class entries, including that no class earlier in the MRO gains the name."""
    def f(x):
        o = _Sub()
        return o.k(x) + o.m(x)

    h = Harness()
    compiled = h.compile(f)
    x = torch.ones(2)
    compiled(x)
    compiled(x)
    assert h.captures == 1
    try:
        shadow()
        torch.testing.assert_close(compiled(x), f(x))
        assert h.captures == 2
    finally:
        for name in ("k", "m"):
            if name in _Sub.__dict__:
                delattr(_Sub, name)
