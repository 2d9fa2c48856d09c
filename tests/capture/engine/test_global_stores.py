"""``global x; x = v`` and ``del x`` are recorded side effects (interpreter's STORE_GLOBAL and
DELETE_GLOBAL, families/side_effects.py): no graph break, replayed after the graph in order with
the other effects, seen by later loads in the same capture -- also when an inlined function of
another module stores into that module's globals."""
from __future__ import annotations

import sys
import types

import pytest
import torch

import autograph
from tests.capture.harness import Harness

COUNT = 0
ITEMS: list = []
FLAG = None


def _bump():
    global COUNT
    COUNT += 1
    return COUNT


def test_store_is_replayed_and_seen_by_later_loads():
    global COUNT

    def f(x):
        global COUNT
        COUNT = COUNT + 1
        return x * COUNT

    COUNT = 0
    h = Harness()
    out = h.compile(f)(torch.ones(2))
    assert not h.breaks
    assert COUNT == 1 and torch.equal(out, torch.ones(2))
    out = h.compile(f)(torch.ones(2))  # the guard on COUNT's value: recaptured with 1
    assert COUNT == 2 and torch.equal(out, torch.full((2,), 2.0))


def test_store_from_an_inlined_function_and_in_place_add_on_a_global_list():
    global ITEMS

    def f(x):
        global ITEMS
        ITEMS += ["a"]
        ITEMS.__iadd__(["b"])
        n = _bump()
        return x.sin() + n

    ITEMS = []
    before = COUNT
    original = ITEMS
    h = Harness()
    out = h.compile(f)(torch.tensor(1.0))
    assert not h.breaks
    assert ITEMS is original and ITEMS == ["a", "b"]
    assert COUNT == before + 1
    assert torch.equal(out, torch.tensor(1.0).sin() + before + 1)


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    sys.modules[name] = module
    return module


def test_global_of_another_module_is_seen_as_its_attribute():
    other = _module("_autograph_test_other_globals", "value = 0\ndef set_value(v):\n    global value\n"
                    "    value = v\n    return value\n")

    def f(x):
        other.set_value(5)
        return x + other.value

    try:
        h = Harness()
        out = h.compile(f)(torch.zeros(2))
        assert not h.breaks
        assert other.value == 5 and torch.equal(out, torch.full((2,), 5.0))
    finally:
        del sys.modules["_autograph_test_other_globals"]


def test_delete_global_then_load_finds_the_builtin():
    def f(x):
        global FLAG
        FLAG = 3
        y = x + FLAG
        del FLAG
        return y

    h = Harness()
    out = h.compile(f)(torch.zeros(1))
    assert not h.breaks
    assert torch.equal(out, torch.full((1,), 3.0)) and "FLAG" not in globals()
    globals()["FLAG"] = None


def test_delete_of_an_absent_global_raises_name_error():
    def f(x):
        global _NEVER_DEFINED
        y = x + 1
        del _NEVER_DEFINED
        return y

    with pytest.raises(NameError):
        f(torch.zeros(1))
    with pytest.raises(NameError):
        autograph.compile(f)(torch.zeros(1))


def test_store_before_a_graph_error_has_happened():
    global COUNT

    def f(x, idx):
        global COUNT
        COUNT = COUNT + 10
        return torch.gather(x, 0, idx) + 1

    h = Harness()
    compiled = h.compile(f)
    x = torch.arange(4.0)
    COUNT = 0
    compiled(x, torch.tensor([1]))
    assert COUNT == 10
    with pytest.raises(RuntimeError):
        compiled(x, torch.tensor([9]))
    assert COUNT == 20
    assert not [b for b in h.breaks if "global" in b.reason]


def test_module_attribute_store_is_seen_by_the_module_functions():
    other = _module("_autograph_test_other_attrs", "value = 0\ndef get_value():\n    return value\n")

    def f(x):
        other.value = 7
        return x + other.get_value()

    try:
        h = Harness()
        out = h.compile(f)(torch.zeros(2))
        assert not h.breaks
        assert other.value == 7 and torch.equal(out, torch.full((2,), 7.0))
    finally:
        del sys.modules["_autograph_test_other_attrs"]
