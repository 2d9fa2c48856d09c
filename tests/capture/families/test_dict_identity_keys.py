"""Dicts keyed by tensors (or other identity-hashed objects) made during capture
(families/containers.py ``DictValue``): keyed by identity as ``Tensor.__hash__`` does, iterated in
insertion order, rebuilt with the same key objects at a break."""
from __future__ import annotations

import torch

from tests.capture.checks import check

PARAM = torch.nn.Parameter(torch.ones(4))


def brk(x):
    print(end="")
    return x


def tensor_and_string_keys(a):
    tmp = {"a": a, PARAM: 3}
    return tmp["a"] + tmp[PARAM], PARAM in tmp, a in tmp, len(tmp)


def test_tensor_key_lookup_and_membership():
    h = check(tensor_and_string_keys, lambda: (torch.randn(4),))
    assert h.breaks == []


def iterate_in_insertion_order(a, b):
    d = {b: 1, a: 2}
    d[b] = 5  # an existing key keeps its place
    out = a * 0
    for k, v in d.items():
        out = out * 10 + k * v
    return out, [k is a for k in d]


def test_tensor_keys_iterate_in_insertion_order():
    h = check(iterate_in_insertion_order, lambda: (torch.randn(3), torch.randn(3)))
    assert h.breaks == []


def tensor_keyed_dict_live_at_break(a, b):
    d = {a: "first", b: "second"}
    brk(a)
    return [v for k, v in d.items() if k is b], list(d.values())


def test_tensor_keyed_dict_rebuilt_at_break():
    h = check(tensor_keyed_dict_live_at_break, lambda: (torch.randn(3), torch.randn(3)))
    assert "print" in h.breaks[0].reason  # the dict itself is rebuilt, with its key objects


def popitem_of_a_tensor_keyed_dict(a, b):
    d = {a: 1, b: 2}
    k, v = d.popitem()
    return k * v, k is b, len(d)


def test_popitem_returns_the_key_object():
    h = check(popitem_of_a_tensor_keyed_dict, lambda: (torch.randn(3), torch.randn(3)))
    assert h.breaks == []

