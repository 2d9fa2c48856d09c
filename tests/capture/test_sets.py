"""Sets and frozensets in compiled code (values/sets.py): real set operations on real keys."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness


def two():
    return torch.randn(3), torch.randn(3)


def literal_and_membership(a, b):
    vals = {"a", "b", "c"}
    other = set(["c", "d"])
    return (a + b) * ("a" in vals) + ("z" in vals) + len(vals | other) + len(vals & other), "d" not in vals


def methods(a, b):
    s = {1, 2, 3}
    t = frozenset({3, 4})
    s.add(5)
    s.discard(1)
    s.update([7, 8], (9,))
    u = s.union(t)
    return (a * len(u), s.issubset(u), s.isdisjoint({100}), sorted(s.difference(t)),
            sorted(s.symmetric_difference(t)), s.intersection(t) == {3})


def iteration_order_matches(a, b):
    s = {"banana", "apple", "cherry"}
    s.add("date")
    out = []
    for word in s:
        out.append(word)
    return a + len(out), out


def in_place_operators(a, b):
    s = {1, 2}
    alias = s
    s |= {3}
    s -= {1}
    s &= {2, 3, 4}
    s ^= {9}
    return a * len(alias), s is alias, sorted(s), {1, 2} < {1, 2, 3}, {1} >= {1}


def set_of_tensors(a, b):
    y = a.add_(1)
    s = {a}
    s.add(y)           # the same tensor: one element
    s.add(b)
    t = frozenset([a, b])
    return len(s), a in s, (a + 1) in s, 1 in s, len(t), b in t


def frozenset_constant_and_set_comprehension(a, b):
    f = frozenset((1, 2, 3))
    sq = {i * i for i in f}
    return a * len(sq), sorted(sq), {*[1, 2], *(2, 3)} == {1, 2, 3}


def keys_view_set_operators(a, b):
    d = {"x": a, "y": b}
    return sorted(d.keys() & {"x", "z"}), sorted(d.keys() | {"q"}), sorted({"y", "w"} - d.keys())


@pytest.mark.parametrize("fn", [literal_and_membership, methods, iteration_order_matches, in_place_operators,
                                set_of_tensors, frozenset_constant_and_set_comprehension,
                                keys_view_set_operators])
def test_sets_match_eager_in_one_graph(fn):
    h = check(fn, two)
    assert h.breaks == [], [str(b) for b in h.breaks]


def test_a_set_made_in_the_function_is_new_per_call_and_rebuilt_at_a_break():
    def fn(a):
        s = {1, 2}
        t = {a}
        print("graph break")
        s.add(3)
        return s, t

    h = Harness()
    f = h.compile(fn)
    x = torch.ones(2)
    (s1, t1), (s2, _) = f(x), f(x)
    assert s1 == {1, 2, 3} and s1 is not s2 and t1 == {x}
    assert len(h.breaks) == 1


def test_iterating_a_set_of_several_tensors_breaks():
    def fn(a, b):
        out = []
        for t in {a, b}:
            out.append(t * 2)
        return out

    h = Harness()
    h.compile(fn)(*two())
    assert any(b.kind == "set-order" for b in h.breaks)


S = {1, 2}


def mutate_global_set(a):
    S.add(3)
    S.discard(1)
    return a * len(S)


def test_mutating_a_set_from_outside_is_replayed_after_the_graph():
    global S
    h = Harness()
    f = h.compile(mutate_global_set)
    x = torch.ones(2)
    assert torch.equal(f(x), x * 2) and S == {2, 3}
    assert h.breaks == []
    S = {1, 2, 5}  # another set: guarded by contents, so this recompiles
    assert torch.equal(f(x), x * 3) and S == {2, 3, 5}
