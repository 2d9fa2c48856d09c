"""The recurring guard kinds have native plan nodes (guards/kinds.py, native/guard_eval.c):
DICT_KEYS (keys in order, a plain dict read in place), ITER_REMAINING (a list or tuple iterator's
count read from its fields), PINNED_IDENTITY (one call of the getter, then a pointer compare),
SAME_OBJECT / DISTINCT_OBJECTS (a pointer compare). The C case, its Python twin and the generated
check (the path without the extension) decide alike on passing and failing values, and the C
case runs no Python function where the value is a plain dict or a list/tuple iterator."""
from __future__ import annotations

import collections
import sys

import pytest

from autograph.guards import extension, native
from autograph.guards.check import GuardSet
from autograph.guards.kinds import Op
from autograph.guards.model import dict_keys, iterator_remaining, pinned_identity, same_object
from autograph.guards.sources import LocalSource

C = extension.load()


def one(d):
    return d


def two(a, b):
    return a, b


def none():
    return None


def decisions(gs: GuardSet, args: tuple) -> set:
    """The first failing guard's index (-1: all pass) by every path: generated check, twin, C."""
    plan = native.plan_for(gs)
    assert isinstance(plan, tuple), "expressible as a native plan"
    got = {gs.index_fn(*args), native.check_python(plan, args, None)}
    if C is not None:
        got.add(C.check(plan, args, None))
    return got


def python_calls_in_c_check(gs: GuardSet, args: tuple) -> list[str]:
    """Python functions run while the C evaluator checks ``gs`` on ``args``."""
    plan = native.plan_for(gs)
    seen: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        C.check(plan, args, None)
    finally:
        sys.setprofile(None)
    return [name for name in seen if name != "profile"]


class Key:
    pass


K1, K2 = Key(), Key()


class Reordered(dict):
    """A dict whose iterator yields its keys backwards (``len`` and ``iter`` are what count)."""

    def __iter__(self):
        return iter(list(dict.__iter__(self))[::-1])


class ShortIterator(dict):
    """A mapping whose iterator ends before ``len`` items: never matches."""

    def __iter__(self):
        return iter(list(dict.__iter__(self))[:1])


class Grows:
    """A key equal to its twin whose ``__eq__`` adds an entry to the dict being checked."""

    target: dict = {}

    def __init__(self, tag):
        self.tag = tag

    def __eq__(self, other):
        Grows.target["grown"] = 1
        return isinstance(other, Grows) and other.tag == self.tag

    def __hash__(self):
        return hash(self.tag)


KEYS = (1, "a", K1)
BY_VALUE = (True, True, False)
KEY_CASES = [
    ({1: 5, "a": 6, K1: 7}, -1),
    ({1: 0, "a": 0, K1: 0}, -1),
    ({True: 5, "a": 6, K1: 7}, 0),  # equal, another type
    ({1.0: 5, "a": 6, K1: 7}, 0),
    ({1: 5, "a": 6, K2: 7}, 0),  # another object where compared by identity
    ({1: 5, K1: 7, "a": 6}, 0),  # another order
    ({1: 5, "a": 6}, 0),
    ({1: 5, "a": 6, K1: 7, 2: 8}, 0),
    (collections.OrderedDict([(1, 5), ("a", 6), (K1, 7)]), -1),
    (collections.defaultdict(int, [(1, 5), ("a", 6), (K1, 7)]), -1),
    (Reordered([(K1, 7), ("a", 6), (1, 5)]), -1),
    (Reordered([(1, 5), ("a", 6), (K1, 7)]), 0),
    (ShortIterator([(1, 5), ("a", 6), (K1, 7)]), 0),
    ([1, "a", K1], 0),  # not a mapping: a sequence of the keys has no keys... but iterates them
    (None, 0),
]


@pytest.mark.parametrize("i", range(len(KEY_CASES)))
def test_dict_keys_decide_alike_on_every_path(i):
    value, want = KEY_CASES[i]
    if isinstance(value, list):
        want = -1  # len() and iter() are all DICT_KEYS reads: a list of those keys passes too
    gs = GuardSet(one, [dict_keys(LocalSource("d"), KEYS, BY_VALUE)])
    assert native.plan_for(gs)[5][0][0] == Op.KEYS
    assert decisions(gs, (value,)) == {want}


def test_dict_keys_moved_in_an_ordered_dict_fail_on_every_path():
    d = collections.OrderedDict([(1, 5), ("a", 6), (K1, 7)])
    gs = GuardSet(one, [dict_keys(LocalSource("d"), KEYS, BY_VALUE)])
    assert decisions(gs, (d,)) == {-1}
    d.move_to_end(1)  # the dict's own entries keep their order: OrderedDict's iterator is read
    assert decisions(gs, (d,)) == {0}


def test_dict_keys_fail_when_a_key_compare_changes_the_dict():
    twin = Grows("k")
    gs = GuardSet(one, [dict_keys(LocalSource("d"), (twin, "z"), (True, True))])
    for path in ("generated", "twin", "c"):
        d = {Grows("k"): 1, "z": 2}
        Grows.target = d
        plan = native.plan_for(gs)
        if path == "generated":
            got = gs.index_fn(d)
        elif path == "twin":
            got = native.check_python(plan, (d,), None)
        elif C is None:
            continue
        else:
            got = C.check(plan, (d,), None)
        assert got == 0, path  # the iterator raises "dictionary changed size during iteration"


def test_dict_keys_of_a_plain_dict_run_no_python_function():
    if C is None:
        pytest.skip("autograph._native is not built")
    gs = GuardSet(one, [dict_keys(LocalSource("d"), KEYS, BY_VALUE)])
    assert python_calls_in_c_check(gs, ({1: 5, "a": 6, K1: 7},)) == []


def shrinking_iterator(items: list, taken: int, drop: int):
    it = iter(items)
    for _ in range(taken):
        next(it)
    del items[len(items) - drop:]
    return it


def exhausted(seq):
    it = iter(seq)
    for _ in it:
        pass
    return it


def advanced(seq, n):
    it = iter(seq)
    for _ in range(n):
        next(it)
    return it


class Countdown:
    """An iterator of another type: the guard reads it through its reader."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if not self.n:
            raise StopIteration
        self.n -= 1
        return self.n


def countdown_items(it):
    return tuple(range(it.n - 1, -1, -1)) if isinstance(it, Countdown) else tuple(it)


class Sub(list):
    pass


ITER_VALUES = {
    "list": lambda: iter([1, 2, 3]),
    "list-advanced": lambda: advanced([1, 2, 3, 4], 2),
    "list-exhausted": lambda: exhausted([1, 2]),
    "list-shrunk": lambda: shrinking_iterator([1, 2, 3, 4], 3, 3),  # index past the end: none left
    "list-subclass": lambda: iter(Sub([1, 2])),
    "tuple": lambda: iter((1, 2)),
    "tuple-advanced": lambda: advanced((1, 2, 3, 4), 1),
    "tuple-exhausted": lambda: exhausted((1,)),
    "countdown": lambda: Countdown(2),
    "list-itself": lambda: [1, 2],
    "int": lambda: 3,
}
COUNTS = [(0, True), (1, True), (2, True), (2, False), (3, False), (0, False)]


@pytest.mark.parametrize("name", sorted(ITER_VALUES))
def test_iter_remaining_decides_alike_on_every_path(name):
    for count, more in COUNTS:
        gs = GuardSet(one, [iterator_remaining(LocalSource("d"), countdown_items, count, more)])
        assert native.plan_for(gs)[5][0][0] == Op.ITEMS_LEFT
        got = decisions(gs, (ITER_VALUES[name](),))
        assert len(got) == 1, (name, count, more, got)


def test_iter_remaining_counts_what_the_iterator_will_yield():
    def passes(it, count, more):
        gs = GuardSet(one, [iterator_remaining(LocalSource("d"), countdown_items, count, more)])
        (got,) = decisions(gs, (it,))
        return got == -1

    assert passes(advanced([1, 2, 3, 4], 2), 2, False) and not passes(advanced([1, 2, 3, 4], 2), 2, True)
    assert passes(shrinking_iterator([1, 2, 3, 4], 3, 3), 0, False)
    assert passes(exhausted((1, 2)), 0, False) and passes(iter((1, 2)), 1, True)
    assert passes(Countdown(2), 1, True) and passes(Countdown(2), 2, False)


def test_iter_remaining_of_list_and_tuple_iterators_run_no_python_function():
    if C is None:
        pytest.skip("autograph._native is not built")
    assert C.seq_iter_layout()  # this CPython's list/tuple iterators are read in place
    gs = GuardSet(one, [iterator_remaining(LocalSource("d"), countdown_items, 1, True)])
    assert python_calls_in_c_check(gs, (advanced([1, 2, 3], 1),)) == []
    assert python_calls_in_c_check(gs, (iter((1, 2)),)) == []


HOLDER = {"obj": K1}


def test_pinned_identity_is_one_getter_call_and_a_pointer_compare():
    guard = pinned_identity(lambda: HOLDER["obj"], "HOLDER['obj']", K1)
    gs = GuardSet(none, [guard])
    plan = native.plan_for(gs)
    assert plan[5][0][0] == Op.ID
    for value, want in ((K1, -1), (K2, 0), (None, 0)):
        HOLDER["obj"] = value
        try:
            assert decisions(gs, ()) == {want}
        finally:
            HOLDER["obj"] = K1
    del HOLDER["obj"]
    try:
        assert decisions(gs, ()) == {0}  # the getter raises: the guard fails
    finally:
        HOLDER["obj"] = K1
    if C is not None:
        assert python_calls_in_c_check(gs, ()) == ["<lambda>"]  # the getter only


def test_same_object_is_a_pointer_compare():
    gs = GuardSet(two, [same_object(LocalSource("a"), LocalSource("b"))])
    assert native.plan_for(gs)[5][0][0] == Op.IS
    assert decisions(gs, (K1, K1)) == {-1} and decisions(gs, (K1, K2)) == {0}


@pytest.mark.parametrize("expected, others", [
    (0.0, [-0.0, 0, False, 1e-300]),
    (-0.0, [0.0, -0, False]),
    ((0.0, 1), [(-0.0, 1), (0, 1)]),
    (complex(0.0, -0.0), [complex(0.0, 0.0), complex(-0.0, -0.0)]),
])
def test_a_constant_zero_keeps_its_sign(expected, others):
    """``0.0 == -0.0``, yet ``1 / x``, ``math.copysign`` and ``repr`` tell them apart: EQUALS_MATCH
    on a float zero fails for the other sign on every path."""
    from autograph.guards.model import equals_match

    gs = GuardSet(one, [equals_match(LocalSource("d"), expected)])
    assert decisions(gs, (expected,)) == {-1}
    for value in others:
        assert decisions(gs, (value,)) == {0}, value
