"""Stores into a dict that came from outside (an argument, a global, an attribute) are side
effects replayed after the graph (families/containers.py ``DictValue._mutating``): later reads in
the capture see them, a value read before the store keeps its old value (codegen reads sources
before the replay), one dict read through two paths stays one value, and two dicts that were
distinct when captured must be distinct again for the entry to be used."""
from __future__ import annotations

import torch

import autograph
from tests.capture.checks import check
from tests.capture.harness import Harness


def memoize_by_shape(x, cached):
    if x.shape not in cached:
        cached[x.shape] = x
    return x + cached[x.shape]


def test_store_keyed_by_size_is_replayed():
    cached_eager, cached_compiled = {}, {}
    h = Harness()
    f = h.compile(memoize_by_shape)
    for _ in range(3):
        x = torch.randn(2, 3)
        assert torch.equal(f(x, cached_compiled), memoize_by_shape(x, cached_eager))
        assert list(cached_compiled) == list(cached_eager)
        assert all(type(k) is torch.Size for k in cached_compiled)
    assert h.breaks == []


def mutate_every_way(x, d):
    old = d["a"]
    d["a"] = x + 1
    d.setdefault("b", 7)
    d.update(c=x * 2)
    gone = d.pop("z", None)
    del d["k"]
    return old, gone, d["a"] + d["c"], len(d)


def test_dict_methods_on_an_argument():
    h = check(mutate_every_way, lambda: (torch.randn(3), {"a": torch.randn(3), "k": 1, "z": 2}))
    assert h.breaks == []


def store_through_one_read_through_other(x, a, b):
    a["v"] = x + 1
    return b["v"] * 2


def test_two_paths_to_one_dict_and_two_dicts():
    h = Harness()
    f = h.compile(store_through_one_read_through_other)
    x = torch.randn(3)
    a, b = {"v": x}, {"v": x}
    assert torch.equal(f(x, a, b), x * 2)  # captured distinct
    assert torch.equal(a["v"], x + 1)
    shared = {"v": x}
    assert torch.equal(f(x, shared, shared), (x + 1) * 2)  # must not reuse the distinct entry
    assert torch.equal(f(x, {"v": x}, {"v": x}), x * 2)
    assert h.breaks == []


class Holder:
    pass


HOLDER = Holder()


def return_value_before_store(x):
    y = x + 1
    old = HOLDER.t
    HOLDER.t = y
    return old


def test_value_read_before_a_replayed_store_keeps_its_value():
    HOLDER.t = torch.full((2,), 3.0)
    f = autograph.compile(return_value_before_store, backend="eager")
    out = f(torch.zeros(2))
    assert torch.equal(out, torch.full((2,), 3.0))
    assert torch.equal(HOLDER.t, torch.ones(2))


def namespace_dict_stays_a_break(x, obj):
    vars(obj)["t"] = x
    return obj.t + 1


def test_store_into_an_object_dict_is_exact():
    check(namespace_dict_stays_a_break, lambda: (torch.randn(2), Holder()))
