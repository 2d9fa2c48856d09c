"""Dicts from outside keyed by tensors, modules, functions or plain objects
(families/object_keyed_dicts.py): a lookup with the very key object is answered from the real
dict, guarded on the keys (by identity, in order) and on the lookup's object."""
from __future__ import annotations

import collections

import torch

from tests.capture.harness import Harness

REF = {}


class Plain:
    pass


def lookup(d, x):
    return d[x] + 3, x in d


def test_tensor_keys_looked_up_by_the_key_tensor():
    x, y, z, other = (torch.randn(4) for _ in range(4))
    h = Harness()
    f = h.compile(lookup)
    d1 = {x: y, 3: z}
    for d, key in ((d1, x), (d1, x), ({3: z, x: y}, x), ({x: y, 3: z, other: z}, other)):
        got, ref = f(d, key), lookup(d, key)
        torch.testing.assert_close(got[0], ref[0])
        assert got[1] == ref[1]
    assert h.breaks == [] and h.captures == 3  # same keys, same key: no recompile


def call_module_key(d, m):
    return d[m](torch.ones(2, 2))


def test_module_keys():
    a, b, c = (torch.nn.Linear(2, 2) for _ in range(3))
    h = Harness()
    f = h.compile(call_module_key)
    for d, m in (({a: b, 3: c}, a), ({a: b, c: a}, c)):
        torch.testing.assert_close(f(d, m), call_module_key(d, m))
    assert h.breaks == []


def function_key(d):
    if collections.namedtuple in d:
        return d[3] * 2
    return d[3] * 3


def test_function_keys():
    h = Harness()
    f = h.compile(function_key)
    for d in ({collections.namedtuple: None, 3: torch.randn(3)}, {2: None, 3: torch.randn(3)}):
        torch.testing.assert_close(f(d), function_key(d))
    assert h.breaks == [] and h.captures == 2


def store_under_object_key(a, x):
    REF[a]["foo"] = x
    return x + 1


def test_store_into_a_dict_found_under_an_object_key():
    h = Harness()
    f = h.compile(store_under_object_key)
    for _ in range(2):
        a = Plain()
        REF.clear()
        REF[a] = {}
        x = torch.randn(3)
        torch.testing.assert_close(f(a, x), x + 1)
        assert REF[a]["foo"] is x
    assert h.breaks == []
