"""Instances of user subclasses of int/float/str made in the call (families/scalar_subclasses.py):
modelled like list/tuple/set subclasses -- the base value plus an instance ``__dict__`` --, with
the base's C operators and methods run on the base value, Python overrides run, errors that name
the type left to Python, and the object rebuilt with its class. Dict keys whose Python
``__hash__`` changes state keep CPython's hash counts (``dict.fromkeys`` of a dict or set reuses
stored hashes) and a table holding one is never rebuilt by hashing it again."""
from __future__ import annotations

import torch

from tests.capture.checks import assert_same
from tests.capture.harness import Harness


class Count(int):
    pass


class Meters(float):
    def __init__(self, *args):
        self.unit = "m"


class Tag(str):
    pass


class Louder(int):
    def __add__(self, other):
        return Louder(int.__add__(self, other) + 100)


class HashCountingInt(int):
    def __init__(self, *args):
        self.hash_count = 0

    def __hash__(self):
        self.hash_count += 1
        return int.__hash__(self)


def _same_and_whole(fn, *args):
    h = Harness()
    got, expected = h.compile(fn)(*args), fn(*args)
    assert_same(got, expected)
    return h


def arithmetic(t):
    c = Count(3)
    return t * (c + 2), c * 2, 7 - c, c == 3, c < 4, bool(Count(0)), c // 2, -1 + c


def test_int_subclass_operators_are_ints_and_one_graph():
    h = _same_and_whole(arithmetic, torch.ones(2))
    assert h.captures == 1 and not h.breaks


def returned(t):
    m = Meters(2.5)
    return t + 1, Count(5), Tag("ab"), m, m.unit, m * 2


def test_objects_are_rebuilt_with_their_class_and_attributes():
    h = _same_and_whole(returned, torch.ones(2))
    assert h.captures == 1 and not h.breaks
    out = h.compile(returned)(torch.ones(2))
    assert type(out[1]) is Count and type(out[2]) is Tag and type(out[3]) is Meters and out[3].unit == "m"


def text_methods(t):
    s = Tag("abc")
    return t + 1, s.upper(), len(s), s[1], "b" in s, list(Tag("xy")), s + "d", bool(Tag(""))


def test_str_subclass_methods_and_container_protocol_are_strs():
    h = _same_and_whole(text_methods, torch.ones(2))
    assert h.captures == 1 and not h.breaks


def overridden(t):
    return t + 1, Louder(1) + 1, type(Louder(1) + 1).__name__, 1 + Louder(1)


def test_python_operators_of_the_subclass_run():
    h = _same_and_whole(overridden, torch.ones(2))
    assert h.captures == 1 and not h.breaks


def subscript_error(t):
    try:
        Count(3)[0]
    except TypeError as e:
        return t + 1, str(e)


def operand_error(t):
    try:
        return t + 1, Count(3) + "a"
    except TypeError as e:
        return t + 1, str(e)


def length_error(t):
    try:
        return t + 1, len(Count(3))
    except TypeError as e:
        return t + 1, str(e)


def test_errors_naming_the_type_are_pythons_own():
    for fn in (subscript_error, operand_error, length_error):
        _same_and_whole(fn, torch.ones(1))
        assert "Count" in fn(torch.ones(1))[1]


def hash_counts(t, thetype):
    d = dict.fromkeys(map(HashCountingInt, range(6)))
    counts = [sum(e.hash_count for e in d)]
    s = thetype(d)  # stored hashes: no __hash__ runs
    counts.append(sum(e.hash_count for e in d))
    dict.fromkeys(set(d))
    dict.fromkeys(frozenset(d))
    counts.append(sum(e.hash_count for e in d))
    dict.fromkeys(list(d))  # a list: every key hashed again
    counts.append(sum(e.hash_count for e in d))
    x = HashCountingInt(3)
    d2 = {x: 1}
    d2[x] = 2
    return t + 1, counts, x.hash_count, len(s), 3 in d, sorted(s), d2[3]


def test_python_hashes_run_as_often_as_in_cpython():
    for thetype in (set, frozenset):
        h = _same_and_whole(hash_counts, torch.ones(1), thetype)
        assert h.captures == 1 and not h.breaks
        assert hash_counts(torch.ones(1), thetype)[1] == [6, 6, 6, 12]


def table_at_a_break(t):
    d = dict.fromkeys(map(HashCountingInt, range(4)))
    torch._dynamo.graph_break()
    return t + 1, [k.hash_count for k in d]


class Counted:
    def __init__(self, v):
        self.v = v
        self.hash_count = 0

    def __hash__(self):
        self.hash_count += 1
        return hash(self.v)

    def __eq__(self, other):
        return isinstance(other, Counted) and other.v == self.v


def plain_keys_at_a_break(t):
    d = {Counted(i): None for i in range(4)}
    torch._dynamo.graph_break()
    return t + 1, [k.hash_count for k in d]


def test_a_table_whose_keys_count_their_hashes_is_made_in_python_at_a_break():
    for fn in (table_at_a_break, plain_keys_at_a_break):
        _same_and_whole(fn, torch.ones(1))
        assert fn(torch.ones(1))[1] == [1, 1, 1, 1]
