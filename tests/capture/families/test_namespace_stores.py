"""Stores into an object's ``__dict__`` read from outside (families/containers.py namespaces,
families/side_effects.py ``dict-store``): ``obj.__dict__[name] = v`` and ``obj.__dict__.update``
are instance-dict stores replayed in order after the graph, bypassing descriptors as Python does;
later attribute and ``__dict__`` reads see them; a property with a Python setter runs it."""
from __future__ import annotations

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


class Plain:
    def __init__(self):
        self.b = 1


def store_then_read(x, obj):
    obj.__dict__["a"] = 10
    obj.b = 2
    obj.__dict__["b"] = 3
    return x * obj.a + obj.__dict__["a"] + obj.b, list(obj.__dict__)


def test_a_store_into_the_instance_dict_is_replayed_and_read_back():
    h = check(store_then_read, lambda: (torch.randn(4), Plain()))
    assert h.breaks == []


def update_namespace(x, obj):
    obj.__dict__.update({"c": 4, "b": 5}, d=6)
    return x + obj.b + obj.c + obj.d, sorted(obj.__dict__.items())


def test_update_of_the_instance_dict():
    h = check(update_namespace, lambda: (torch.randn(4), Plain()))
    assert h.breaks == []


class Logged:
    """A property whose setter logs: a store into ``__dict__`` bypasses it."""

    def __init__(self):
        self.__dict__["x"] = 1
        self.log = []

    @property
    def x(self):
        return self.__dict__["x"] * 100

    @x.setter
    def x(self, value):
        self.log.append(value)
        self.__dict__["x"] = value


def bypass_and_use_the_property(x, obj):
    obj.__dict__["x"] = 2  # no setter call
    a = obj.x  # the getter: 200
    obj.x = a + 1  # the setter: logs 201, stores 201
    return x + obj.x + obj.__dict__["x"], len(obj.log)


def test_a_namespace_store_bypasses_the_property_and_the_setter_runs_on_attribute_stores():
    h = Harness()
    f = h.compile(bypass_and_use_the_property)
    a, b = Logged(), Logged()
    got, ref = f(torch.ones(2), a), bypass_and_use_the_property(torch.ones(2), b)
    torch.testing.assert_close(got[0], ref[0])
    assert got[1] == ref[1] and a.log == b.log == [201] and vars(a) == vars(b)
    assert h.breaks == []


class Module(torch.nn.Module):
    def forward(self, x):
        self.__dict__["scale"] = 10
        return x * self.scale + self.__dict__["scale"]


def call_module(m, x):
    return m(x)


def test_a_store_into_a_module_instance_dict():
    h = Harness()
    m, ref_m = Module(), Module()
    out = h.compile(call_module)(m, torch.ones(3))
    torch.testing.assert_close(out, ref_m(torch.ones(3)))
    assert m.__dict__["scale"] == 10 and h.breaks == []


def non_string_key(x, obj):
    obj.__dict__[1] = 2
    return x + 1


def test_a_non_string_key_still_breaks_and_runs_right():
    h = check(non_string_key, lambda: (torch.randn(4), Plain()))
    assert len(h.breaks) == 1


def store_through_one_read_through_another(t, a, b):
    a.x = t
    return b.x + 1, b.__dict__["x"] + 2


def _run_aliasing(make_pairs):
    h = Harness()
    f = h.compile(store_through_one_read_through_another)
    for a, b, ref_a, ref_b in make_pairs():
        t = torch.randn(2)
        got, ref = f(t, a, b), store_through_one_read_through_another(t, ref_a, ref_b)
        torch.testing.assert_close(got, ref)
    return h


def _one_or_two():
    """The same object twice, then two objects, then the same again."""
    for same in (True, False, True, False):
        if same:
            o, r = Plain(), Plain()
            o.x = r.x = torch.zeros(2)
            yield o, o, r, r
        else:
            a, b, ra, rb = Plain(), Plain(), Plain(), Plain()
            a.x = b.x = ra.x = rb.x = torch.zeros(2)
            yield a, b, ra, rb


def test_a_store_is_seen_through_another_read_exactly_when_both_are_one_object():
    h = _run_aliasing(_one_or_two)
    assert h.breaks == [] and h.captures == 2


class Cell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.x = torch.zeros(2)


class Proxy(torch.nn.Module):
    """Shares the instance dict of a module (torch.fx's attribute proxies do)."""

    def __init__(self, base):
        self.__dict__ = base.__dict__


def _proxies():
    """Two modules sharing one instance dict, then two with their own, then sharing again."""
    for shared in (True, False, True):
        base, ref_base = Cell(), Cell()
        if shared:
            yield Proxy(base), Proxy(base), Proxy(ref_base), Proxy(ref_base)
        else:
            other, ref_other = Cell(), Cell()
            yield Proxy(base), Proxy(other), Proxy(ref_base), Proxy(ref_other)


def test_a_tensor_stored_on_a_module_is_seen_through_another_module_sharing_its_dict():
    h = _run_aliasing(_proxies)
    assert h.breaks == [] and h.captures == 2


class SetsTraining(torch.nn.Module):
    def forward(self, x):
        self.__dict__["training"] = False  # module state: a break, run by Python
        return x * 2 if self.training else x


def test_a_store_of_module_state_through_the_instance_dict_breaks_and_runs_right():
    h = Harness()
    m, ref_m = SetsTraining(), SetsTraining()
    torch.testing.assert_close(h.compile(call_module)(m, torch.ones(2)), ref_m(torch.ones(2)))
    assert m.training is False and len(h.breaks) >= 1


class PropertyModule(torch.nn.Module):
    @property
    def scale(self):
        return self.__dict__.get("scale", 1) * 10

    @scale.setter
    def scale(self, value):
        self.__dict__["scale"] = value

    def forward(self, x):
        self.__dict__["scale"] = 3  # the property still decides `self.scale`
        return x * self.scale


def test_a_module_property_decides_a_read_over_the_instance_dict():
    h = Harness()
    m, ref_m = PropertyModule(), PropertyModule()
    torch.testing.assert_close(h.compile(call_module)(m, torch.ones(2)), ref_m(torch.ones(2)))
    assert h.breaks == []
