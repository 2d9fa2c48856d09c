"""Dict-subclass objects from outside that keep dict's item protocol
(families/dict_subclass_objects.py): reads answered from their table (keys guarded), writes
replayed on the object after the graph, attributes as for any object."""
from __future__ import annotations

from collections import OrderedDict

import torch

from tests.capture.harness import Harness


class Simple(dict):
    pass


class Ordered(OrderedDict):
    pass


class DotDict(dict):
    __getattr__ = dict.get


class OwnGet(dict):
    def get(self, key, default=None):
        return "own"


def reads(x, sd):
    for value in sd.values():
        x = x * value
    for key in sd:
        x = x * key
    for k, v in sd.items():
        x = x * k * v
    return x * sd.get(2, 0) * sd.get(3, 4) * len(sd), 1 in sd, sd.attr, list(sd.keys())


def test_reads_of_a_dict_subclass_object_recompile_when_its_keys_change():
    sd = Simple()
    sd[2] = 5
    sd[4] = 10
    sd.attr = 4
    h = Harness()
    f = h.compile(reads)
    x = torch.randn(3)
    for change in (lambda: None, lambda: sd.__setitem__(6, 15), lambda: sd.__setitem__(2, 7)):
        change()
        got, ref = f(x, sd), reads(x, sd)
        torch.testing.assert_close(got[0], ref[0])
        assert got[1:] == ref[1:]
    assert h.breaks == [] and h.captures == 3


def writes(sd, x):
    sd[6] = 14
    del sd[2]
    sd.update(z=1)
    return x * sd.pop(4), len(sd)


def test_writes_are_replayed_on_the_object():
    h = Harness()
    f = h.compile(writes)
    for _ in range(2):
        a, b = Simple({2: 5, 4: 10}), Simple({2: 5, 4: 10})
        a.attr = b.attr = 1
        x = torch.randn(3)
        got, ref = f(a, x), writes(b, x)
        torch.testing.assert_close(got[0], ref[0])
        assert got[1] == ref[1] and a == b and list(a) == list(b) and type(a) is Simple
    assert h.breaks == []


def membership(x, d):
    if "key1" in d:
        x = x + 2
    if "key2" in d:
        x = x + 4
    return x + 8, d.get("a", 3), d.get("key1") is not None


def test_ordered_dict_subclass_and_dict_get_as_getattr():
    h = Harness()
    f = h.compile(membership)
    x = torch.ones(3)
    for d in (Ordered({"key1": 1}), Ordered({"key2": 1}), DotDict({"a": 1}), OwnGet({"key1": 1})):
        assert f(x, d)[1:] == membership(x, d)[1:]
        torch.testing.assert_close(f(x, d)[0], membership(x, d)[0])
    assert h.breaks == []


def uses_get(x, sd):
    return x * sd.get("a", 2)


def test_an_instance_attribute_shadowing_a_method_recompiles():
    sd = Simple(a=3)
    h = Harness()
    f = h.compile(uses_get)
    x = torch.randn(3)
    torch.testing.assert_close(f(x, sd), uses_get(x, sd))
    sd.get = lambda key, default=None: 5
    torch.testing.assert_close(f(x, sd), uses_get(x, sd))
    Simple.get = lambda self, key, default=None: 7
    try:
        del sd.get
        torch.testing.assert_close(f(x, sd), uses_get(x, sd))
    finally:
        del Simple.get


class OwnKeysOrdered(OrderedDict):
    def keys(self):
        return ["b"]


class OwnKeys(dict):
    def keys(self):
        return ["b"]


def merges(x, d):
    e = {"z": 0}
    e.update(d)
    return x + 1, dict(d), {**d}, e


def test_merging_reads_the_table_or_keys_as_pydict_merge_does():
    h = Harness()
    f = h.compile(merges)
    x = torch.zeros(1)
    for d in (OwnKeysOrdered(a=1, b=2), OwnKeys(a=1, b=2), Simple(a=1)):
        assert f(x, d)[1:] == merges(x, d)[1:]
    assert h.breaks == []


class Counting(dict):
    """A Python ``__getitem__`` reaching dict's own through ``super()``, counting its calls."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = 0

    def __getitem__(self, key):
        self.calls += 1
        return super().__getitem__(key) + 1

    def __contains__(self, key):
        return key != "hidden" and super().__contains__(key)


def store_then_read_through_the_override(x, d):
    d["d"] = 4
    d["a"] = 10
    return x * d["a"] + d["b"] + d["d"], "hidden" in d, "b" in d, len(d), list(d), d.get("a")


def test_a_python_getitem_runs_and_reaches_the_table_through_super():
    h = Harness()
    f = h.compile(store_then_read_through_the_override)
    for _ in range(2):
        x = torch.randn(3)
        a = Counting({"a": 2, "b": 3, "hidden": 0})
        b = Counting({"a": 2, "b": 3, "hidden": 0})
        got, ref = f(x, a), store_then_read_through_the_override(x, b)
        torch.testing.assert_close(got[0], ref[0])
        assert got[1:] == ref[1:] and a == b and a.calls == b.calls == 3
    assert h.breaks == [] and h.captures == 1
