"""Dict keys whose hash and equality are Python code (families/interpreted_keys.py): the class's
``__hash__`` and ``__eq__`` are inlined, so equal objects made apart find one entry, and dict
equality runs the keys' ``==`` (its exception included) as CPython's ``dict_equal`` does."""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Callable, NamedTuple

import torch

import autograph
from tests.capture.checks import check

CALLS = []


class Key:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        CALLS.append("hash")
        return hash(self.v)

    def __eq__(self, other):
        CALLS.append("eq")
        return isinstance(other, Key) and other.v == self.v


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


class BadCmpError(Exception):
    pass


class BadCmp:
    def __eq__(self, other):
        raise BadCmpError

    def __hash__(self):
        return 1


class Holder(NamedTuple):
    fn: Callable
    const: int


class Plain(dict):
    pass


def add(x, y):
    return x + y


def arg():
    return (torch.randn(3),)


def user_keys(x):
    d = {Key(1): x, Key(2): x * 2}
    d[Key(1)] = x + 5  # equal to the first key: replaces its value, keeps its place
    return d[Key(1)], Key(2) in d, len(d), d.get(Key(3), 7), hash(Key(4))


def test_user_hash_and_eq_are_interpreted():
    h = check(user_keys, arg)
    assert h.breaks == []
    x = torch.randn(3)
    CALLS.clear()
    user_keys(x)
    eager = list(CALLS)
    CALLS.clear()
    h.compile(user_keys)(x)
    assert CALLS == eager and "eq" in eager  # the same calls, in the same order


def frozen_dataclass_keys(x):
    d = {Point(1, 2): x * 2, Point(3, 4): x * 3}
    return d[Point(1, 2)] + d[Point(3, 4)], Point(1, 3) in d


def test_frozen_dataclass_keys():
    assert check(frozen_dataclass_keys, arg).breaks == []


def named_tuple_of_a_partial(x):
    g = functools.partial(add, y=1)
    d = {Holder(g, 4): 5}
    return x * d[Holder(g, 4)], Holder(functools.partial(add, y=1), 4) in d


def test_tuple_keys_holding_objects():
    assert check(named_tuple_of_a_partial, arg).breaks == []


def key_eq_raises(kind):
    def f(x):
        d1 = kind({BadCmp(): 1})
        d2 = kind({1: 1})
        try:
            d1 == d2  # noqa: B015
        except BadCmpError:
            return x + 1
        return x - 1
    return f


def test_dict_equality_runs_the_keys_eq():
    for kind in (dict, Plain, collections.OrderedDict):
        assert check(key_eq_raises(kind), arg).breaks == [], kind


def equality_of_tensor_valued_dicts(x):
    a = {"a": x, "b": 2}
    b = {"b": 2, "a": x}
    return a == b, a != b, a == {"a": x}, {Key(1): 1} == {Key(1): 1}


def test_dict_equality_by_identity_then_eq():
    assert check(equality_of_tensor_valued_dicts, arg).breaks == []


@dataclasses.dataclass
class Mutable:
    a: int


def unhashable_dataclass(x):
    try:
        {Mutable(1): x}
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def test_unhashable_user_class_raises_type_error():
    assert check(unhashable_dataclass, arg).breaks == []


SEEN: dict = {}
SEEN_SET: set = set()


def store_into_outside_dict(x, k):
    y = x * 2
    SEEN[Key(k)] = "first"
    SEEN.setdefault(Key(k + 1), "second")
    SEEN_SET.add(Key(k))
    return y + 1, len(CALLS), len(SEEN_SET)


def test_a_key_with_an_effectful_hash_stored_into_a_dict_from_outside_is_hashed_once():
    """The store (into a dict or a set) is replayed after the graph, which hashes the key again: such a store breaks."""
    compiled = autograph.compile(store_into_outside_dict, backend="eager")
    for fn in (store_into_outside_dict, compiled):
        SEEN.clear()
        SEEN_SET.clear()
        CALLS.clear()
        out = [fn(torch.ones(3), k)[1:] for k in (1, 2, 1)]
        if fn is store_into_outside_dict:
            eager = (out, list(CALLS), sorted(key.v for key in SEEN))
    assert (out, list(CALLS), sorted(key.v for key in SEEN)) == eager
