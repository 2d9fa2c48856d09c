"""Objects made in the call, C functions and enum members as dict keys and set elements
(families/made_keys.py). Made objects are hashed by
identity when their class keeps ``object.__hash__``/``object.__eq__``; otherwise a break."""
from __future__ import annotations

import enum
import functools

import torch

from tests.capture.checks import check
from tests.capture.harness import Harness
from tests.capture.families.test_collections import compare, x_only


class Key:
    def __init__(self, v):
        self.v = v


class ValueKey:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, other):
        return isinstance(other, ValueKey) and other.v == self.v


def test_made_objects_are_distinct_keys_by_identity():
    def f(a):
        d = {}
        k1, k2 = Key(1), Key(1)
        d[k1] = a * 2
        d[k2] = a * 3
        d[k1] = d[k1] + 1
        return d[k1] * d[k2], len(d), k1 in d, Key(1) in d, [v for v in d.values()]

    compare(f, x_only)


def test_a_made_partial_is_a_key_and_a_set_element():
    def f(a):
        p = functools.partial(torch.mul, other=2)
        d = {p: 5, "c": 1}
        s = {p}
        return a * d[p], p in s, len(s), d.get(functools.partial(torch.mul, other=2), 0)

    compare(f, x_only)


def test_the_dict_is_rebuilt_with_the_same_key_object():
    def f(a):
        k = Key(7)
        d = {"x": a, k: a + 1}
        return d, k

    h = Harness()
    out, key = h.compile(f)(torch.ones(2))
    assert not h.breaks
    assert list(out) == ["x", key] and list(out)[1] is key
    torch.testing.assert_close(out[key], torch.ones(2) + 1)


def test_a_class_with_its_own_hash_is_keyed_by_its_interpreted_hash_not_identity():
    def f(a):
        d = {ValueKey(1): a}
        return d[ValueKey(1)] + 1, ValueKey(2) in d

    h = compare(f, x_only)
    assert not h.breaks  # (its __hash__/__eq__ are inlined: families/interpreted_keys.py)


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def test_c_functions_and_enum_members_are_keys_by_their_real_hash():
    def f(x, y):
        d = {torch.add: x * 2, torch.mul: y * 3}
        e = {Color.RED: x * 2, Color.GREEN: x * 3}
        s = {Color.RED, torch.add}
        return (d[torch.add] + d[torch.mul] + e[Color.RED] + e[Color.GREEN], torch.add in d, torch.sub in d,
                Color.GREEN in s, len(s), list(e), list(d))

    h = Harness()
    check(f, lambda: (torch.randn(3), torch.randn(3)), harness=h)
    assert not h.breaks, [b.reason for b in h.breaks]
