"""Sets and frozensets in compiled code (families/sets.py): real set operations on real keys."""
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


def format_set_of_constants(a, b):
    s = {"banana", "apple", "cherry", 3}
    s.discard("apple")
    s.add("kiwi")
    return a + 1, f"{s} {s!r:>60}", str(s), repr(s), f"{frozenset(s)}"


def test_formatting_a_set_of_constants_folds_its_real_text():
    h = check(format_set_of_constants, two)
    assert h.breaks == [], [str(b) for b in h.breaks]


def frozenset_of_a_set(a, b):
    t = set()
    for v in [53, 24, 124, 7, 99, 110, 155, 195, 196]:
        t.add(v)
    d = dict.fromkeys([196, 195, 99, 7])
    return a + 1, list(frozenset(t)), list(set(d)), list(t.union(d))


def test_a_set_built_from_a_set_or_dict_takes_the_same_path_as_python():
    """``frozenset(t)`` copies ``t``'s table the way CPython does for a set, not as from a list of
    its items, which orders these nine ints differently; a dict too has its own sized path."""
    h = check(frozenset_of_a_set, two)
    assert h.breaks == [], [str(b) for b in h.breaks]


def iterate_set_from_outside(a, s):
    return a + 1, [e for e in s], f"{s}"


def test_a_set_from_outside_iterates_in_its_own_order_and_is_guarded_by_it():
    grown = set()
    grown.add(8)
    grown.add(0)   # 0 probes past 8: iterates [8, 0]
    literal = {0, 8}  # iterates [0, 8]
    assert grown == literal and list(grown) != list(literal)
    h = Harness()
    f = h.compile(iterate_set_from_outside)
    x = torch.ones(2)
    for s in (grown, literal, grown):
        _, order, text = f(x, s)
        assert order == list(s) and text == f"{s}"


def test_a_set_from_outside_changed_during_capture_does_not_iterate():
    def fn(a, s):
        s.add(16)
        return a + 1, [e for e in s]

    h = Harness()
    s = {0, 8}
    _, order = h.compile(fn)(torch.ones(2), s)
    assert order == list(s)
    assert any(b.kind == "set-history" for b in h.breaks)


def build_and_return(a, adds, removes):
    s = set()
    for v in adds:
        s.add(v)
    for v in removes:
        s.discard(v)
    return a + 1, s


@pytest.mark.parametrize("adds, removes", [
    ([127, 12, 42, 58, 34], []),  # set(frozenset(s)) reorders these: rebuilt from a tuple
    ([84, 286, 90, 120, 118, 12, 166, 88, 69, 261, 184], [184, 69, 90, 88, 166, 120, 118, 261]),  # neither
])
def test_a_returned_set_iterates_as_pythons_or_runs_eagerly(adds, removes):
    import autograph
    f = autograph.compile(build_and_return)  # the second set cannot be rebuilt: it runs eagerly
    got = f(torch.ones(2), tuple(adds), tuple(removes))[1]
    expected = build_and_return(torch.ones(2), adds, removes)[1]
    assert list(got) == list(expected)
